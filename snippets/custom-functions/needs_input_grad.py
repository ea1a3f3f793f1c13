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
        if ctx.needs_input_grad[0]:  # skip the work for inputs that need none
            grad_a = grad_output * b
        if ctx.needs_input_grad[1]:
            grad_b = grad_output * a
        # 1st run: data requires no grad, so none is computed for it;
        # 2nd run: both require grad, and both are computed
        print(ctx.needs_input_grad, grad_a, grad_b)
        #> (True, False) tensor([4., 5.]) None
        #> (True, True) tensor([4., 5.]) tensor([2., 3.])
        return grad_a, grad_b


w = torch.tensor([2.0, 3.0], requires_grad=True)  # a weight: wants a gradient
data = torch.tensor([4.0, 5.0])  # input data: does not
loss = MyMul.apply(w, data).sum()
loss.backward()
print(w.grad, data.grad)  # tensor([4., 5.]) None -> d(loss)/dw = data

# needs_input_grad was fixed by requires_grad when forward ran: asking
# autograd.grad for w alone does not tell backward that _v's is unused
_v = torch.tensor([4.0, 5.0], requires_grad=True)
_loss = MyMul.apply(w, _v).sum()
print(torch.autograd.grad(_loss, w))  # (tensor([4., 5.]),)
