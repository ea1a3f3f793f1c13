import torch
import torch.autograd.forward_ad as fwAD


def f(x):  # R^3 -> R^2
    return torch.stack([x[0] * x[1], x[2].sin() + x[0] ** 2])


x = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
v = torch.tensor([0.3, -1.0, 2.0], dtype=torch.float64)

with fwAD.dual_level():
    jvp = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
print(jvp)  # tensor([-0.4000,  2.3552], dtype=torch.float64)

# the same number, measured: move x a little along v and back
eps = 1e-6
finite_diff = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
print(finite_diff)  # tensor([-0.4000,  2.3552], dtype=torch.float64)

# and worked out by hand: the Jacobian times v
J = torch.tensor(
    [[x[1], x[0], 0.0], [2 * x[0], 0.0, x[2].cos()]], dtype=torch.float64
)
print(torch.allclose(jvp, J @ v), torch.allclose(jvp, finite_diff))  # True True


def s(x):  # R^3 -> R: a scalar function
    return (x**2).sum()


with fwAD.dual_level():
    slope = fwAD.unpack_dual(s(fwAD.make_dual(x, v))).tangent
# one number: how fast s changes along v, the gradient 2x dotted with v
print(slope)  # tensor(-1.4000, dtype=torch.float64)
print(torch.allclose(slope, (2 * x) @ v))  # True

# v is not a unit vector; along the unit vector v / |v|, the slope is
# the JVP divided by |v|, J being linear
print(v.norm())  # tensor(2.2561, dtype=torch.float64)
print(slope / v.norm())  # tensor(-0.6205, dtype=torch.float64)
