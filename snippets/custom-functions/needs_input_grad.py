import torch


class MyMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:  # skip the work for inputs nobody asked about
            grad_a = grad_output * b
        if ctx.needs_input_grad[1]:
            grad_b = grad_output * a
        print(ctx.needs_input_grad, grad_a, grad_b)  # (True, False) tensor([4., 5.]) None -> b needs no gradient, so none is computed
        return grad_a, grad_b


w = torch.tensor([2.0, 3.0], requires_grad=True)  # a weight: wants a gradient
data = torch.tensor([4.0, 5.0])  # input data: does not
loss = MyMul.apply(w, data).sum()
loss.backward()
print(w.grad, data.grad)  # tensor([4., 5.]) None -> d(loss)/dw = data
