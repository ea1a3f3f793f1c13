import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0])
v = torch.tensor([1.0, 1.0])

with fwAD.dual_level():
    y = fwAD.make_dual(x, v) ** 2
    print(fwAD.unpack_dual(y).tangent)  # tensor([2., 4.])

# leaving the level drops every tangent made inside it
print(fwAD.unpack_dual(y))
#> UnpackedDualTensor(primal=tensor([1., 4.]), tangent=None)

try:
    fwAD.make_dual(x, v)  # and no dual tensor can be made outside one
except RuntimeError as e:
    print(f"RuntimeError: {e}")
    #> RuntimeError: ...dual Tensor for forward AD but no level exists, ...
