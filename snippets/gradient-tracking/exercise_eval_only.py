import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Dropout(p=0.5))


def evaluate(model, batch):
    model.eval()  # evaluation: no gradients needed here
    return model(batch)


out = evaluate(model, torch.ones(4, 3))
print(out.requires_grad, type(out.grad_fn).__name__)  # True AddmmBackward0
