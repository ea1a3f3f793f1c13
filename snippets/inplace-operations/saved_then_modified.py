import torch

x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y = torch.relu(x)  # relu's backward needs to know where its output was positive
print(type(y.grad_fn).__name__, y._version)  # ReluBackward0 0 -> the Node that will need y, and y's version when it was saved
print(torch.equal(y.grad_fn._saved_result, y))  # True -> the Node saved relu's output

y += 1  # modify that saved output in place
print(y._version)  # 1 -> one change later

try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")  # RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Relu, is at version 1; expected version 0 instead. Hint: enable anomaly detection ...
