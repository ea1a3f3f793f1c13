import torch
from torch.autograd.graph import saved_tensors_hooks


def show(tensor):
    return [round(value, 4) for value in tensor.tolist()]


def pack(tensor):
    """Called during the forward pass, once for every tensor a Node saves."""
    # x.exp() for exp's Node; then exp(x) and x for the multiplication's Node
    print("  pack  ", show(tensor))
    #>   pack   [1.0, 2.7183]
    #>   pack   [1.0, 2.7183]
    #>   pack   [0.0, 1.0]
    # what pack returns is what the graph stores (detach: see Pitfall 2)
    return tensor.detach()


def unpack(packed):
    """Called during backward, when a Node needs a saved tensor back."""
    # the multiplication's Node runs first, exp's Node last
    print("  unpack", show(packed))
    #>   unpack [1.0, 2.7183]
    #>   unpack [0.0, 1.0]
    #>   unpack [1.0, 2.7183]
    return packed  # must give back a tensor with the original's values


x = torch.tensor([0.0, 1.0], requires_grad=True)
# only the forward pass needs to be inside
with saved_tensors_hooks(pack, unpack):
    print("forward:")  # forward:
    loss = (x * x.exp()).sum()

print("backward:")  # backward:
loss.backward()  # the hooks stay attached to what was saved under them
# d/dx of x * exp(x) is (1 + x) * exp(x)
print(x.grad)  # tensor([1.0000, 5.4366])
