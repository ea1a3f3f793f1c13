import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * 2
z = y + 1

# Each edge of the backward graph is a pair (Node, input number) in
# next_functions: here the Node of y, then (None, 0) for the constant 1.
print(z.grad_fn.next_functions)
#> ((<MulBackward0 object at 0x…>, 0), (None, 0))

mul_node, _ = z.grad_fn.next_functions[0]
print(type(mul_node).__name__)  # MulBackward0
accumulate, _ = mul_node.next_functions[0]
# The Node where x's gradient will be accumulated:
print(type(accumulate).__name__)  # AccumulateGrad
print(accumulate.variable is x)  # True -> it holds the leaf itself


def print_tree(node, depth=0):
    """Print the backward graph below node, one Node per line."""
    print("    " * depth + type(node).__name__)
    #> AddBackward0
    #>     MulBackward0
    #>         AccumulateGrad
    for parent, _ in node.next_functions:
        if parent is not None:  # None: an input that needs no gradient
            print_tree(parent, depth + 1)


print_tree(z.grad_fn)
