import torch

w = torch.arange(6.0, requires_grad=True)  # a leaf


def kind(t):
    return t.is_leaf, type(t.grad_fn).__name__


print(kind(w.view(2, 3)))  # (False, 'ViewBackward0')
print(kind(w.reshape(6)))  # (False, 'ViewBackward0') -> even w's own shape
print(kind(w[1:3]))  # (False, 'SliceBackward0')
print(kind(w[0]))  # (False, 'SelectBackward0')
print(kind(w.expand(2, 6)))  # (False, 'ExpandBackward0')
print(kind(torch.zeros(6).view(2, 3)))  # (True, 'NoneType') -> nothing tracked
with torch.no_grad():  # a view that is not recorded
    print(kind(w.view(2, 3)), w.view(2, 3).requires_grad)
    #> (True, 'NoneType') True

m = w.view(2, 3)  # a tensor of its own, on w's memory
print(m.data_ptr() == w.data_ptr())  # True -> no copy was made
loss = (m * m).sum()
loss.backward()
# the gradient goes back through m's Node to the leaf
print(w.grad)  # tensor([ 0.,  2.,  4.,  6.,  8., 10.]) -> 2 * w
print(m.is_leaf, m.requires_grad)  # False True
