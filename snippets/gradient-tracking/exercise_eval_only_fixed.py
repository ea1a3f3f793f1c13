import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Dropout(p=0.5))


def evaluate(model, batch):
    model.eval()  # for the dropout layer
    with torch.no_grad():  # for autograd: nothing is recorded
        return model(batch)


out = evaluate(model, torch.ones(4, 3))
print(out.requires_grad, out.grad_fn)  # False None
