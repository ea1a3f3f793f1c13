import torch

w = torch.tensor([1.5, -2.0], requires_grad=True)

# Python numbers come out without complaint, and without history.
value = (w**2).sum().item()
print(value, type(value).__name__)  # 6.25 float
print(w.tolist())  # [1.5, -2.0] -> a plain list of floats

# A NumPy array is refused while the tensor requires grad.
try:
    w.numpy()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Can't call numpy() on Tensor that requires grad. ...

# The fix: detach first; .cpu() also makes it work for a tensor on a GPU.
array = w.detach().cpu().numpy()
print(array, array.dtype)  # [ 1.5 -2. ] float32
print(w.numpy(force=True))  # [ 1.5 -2. ] -> the same steps, as one call
