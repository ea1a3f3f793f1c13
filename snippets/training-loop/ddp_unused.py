# docexec: figure=none
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.main = nn.Linear(3, 1)
        self.aux = nn.Linear(3, 1)  # used only when asked for

    def forward(self, x, with_aux=False):
        h = self.body(x)
        return self.main(h) + (self.aux(h) if with_aux else 0)


dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
model = DDP(TwoHeads())
model(torch.ones(2, 3)).sum().backward()  # aux.weight, aux.bias get no grad
try:
    model(torch.ones(2, 3))  # DDP finds out at the next forward pass
except RuntimeError as error:
    message = str(error)
    print(message.split(" before ")[0])
    #> Expected to have finished reduction in the prior iteration
    print("find_unused_parameters=True" in message)  # True -> it names the fix
print(model.module.aux.weight.grad)  # None

model = DDP(TwoHeads(), find_unused_parameters=True)
for step in range(2):  # each forward pass now searches the graph: slower
    model(torch.ones(2, 3)).sum().backward()
print(model.module.aux.weight.grad)  # None -> aux still gets no gradient
dist.destroy_process_group()
