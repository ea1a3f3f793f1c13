"""Small graphs with known shapes, shared by the golden tests (``tests/golden/<case>.dot``)."""

import torch


def chain():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * 2
    z = y + 1
    return {"x": x, "y": y, "z": z}


def used_twice():
    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    return {"x": x, "y": y}


def two_leaves():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = (a * b).sum()
    return {"a": a, "b": b, "c": c}


def matrix_sum():
    m = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    s = (m * 3).sum()
    return {"m": m, "s": s}


def detach_cut():
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    h = w.detach()
    out = (h * 2).sum()
    return {"w": w, "h": h, "out": out}


def no_grad_result():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 3
    with torch.no_grad():
        z = y * 2
    return {"x": x, "y": y, "z": z}


def shared_subgraph():
    x = torch.tensor(1.0, requires_grad=True)
    h = x.exp()
    a = h + 1
    b = h * 2
    return {"x": x, "h": h, "a": a, "b": b}


CASES = [chain, used_twice, two_leaves, matrix_sum, detach_cut, no_grad_result, shared_subgraph]
