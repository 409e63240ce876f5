"""SequentialLinearNet: a stack of Linear + ReLU layers, the model of ezpz.examples.minimal (and of the
Python ezpz's examples, which build it by this name and read ``model.layers[0]``)."""

from typing import List, Optional

import torch


class SequentialLinearNet(torch.nn.Module):
    """``input_dim`` -> each width in ``sizes`` (Linear then ReLU) -> ``output_dim`` (Linear).

    With ``sizes`` None or empty, one Linear + ReLU from ``input_dim`` to ``output_dim``. The layers are
    ``self.layers`` (a torch.nn.Sequential), so ``layers[0]`` is the first Linear.
    """

    def __init__(self, input_dim: int, output_dim: int, sizes: Optional[List[int]] = None):
        super().__init__()
        widths = list(sizes or [])
        if not widths:
            stack = [torch.nn.Linear(input_dim, output_dim), torch.nn.ReLU()]
        else:
            stack = []
            for width_in, width_out in zip([input_dim, *widths], widths):
                stack += [torch.nn.Linear(width_in, width_out), torch.nn.ReLU()]
            stack.append(torch.nn.Linear(widths[-1], output_dim))
        self.layers = torch.nn.Sequential(*stack)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)
