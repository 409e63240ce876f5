"""Model FLOPs and model FLOPs utilisation (MFU), with the names of the Python ezpz's ``ezpz.flops``.

    flops = ezpz.try_estimate(model, (batch, features))    # one forward + backward pass; 0 if unknown
    mfu = ezpz.compute_mfu(flops, seconds_per_step)          # percent of this device's peak BF16 FLOPS

estimate_model_flops runs one forward pass of a dummy batch without gradients. Where this torch has
torch.utils.flop_counter.FlopCounterMode (2.1 or newer) it counts every operation, backward included,
by running backward too; elsewhere (Debian's torch 1.13) forward hooks count the multiply-adds of the
Linear and Conv layers (2 FLOPs each) and the backward pass is taken as twice the forward. A model with
none of those layers gets 2 (forward) or 6 (with backward) × parameters × inputs per sample × batch.
torch is imported by the functions, not by ``import ezpz.flops``.
"""

import logging
import math

__all__ = ["compute_mfu", "estimate_model_flops", "get_device_name", "get_peak_flops", "try_estimate"]

logger = logging.getLogger(__name__)

# Peak dense BF16 FLOPS per device (one GCD of an MI250X, one tile of a Max 1550), from the vendors'
# data sheets; the first name contained in the device's name wins, so specific names come first.
_PEAK_FLOPS = (
    ("H100 NVL", 835e12),
    ("H100 PCIE", 756e12),
    ("H100", 989e12),  # SXM
    ("H200", 989e12),
    ("GH200", 989e12),
    ("B200", 2.25e15),
    ("A100", 312e12),
    ("MI355X", 2.5e15),
    ("MI325X", 1307.4e12),
    ("MI300X", 1307.4e12),
    ("MI250X", 191.5e12),
    ("MAX 1550", None),  # Intel Data Center GPU Max: 512 BF16 ops per clock per compute unit
    ("DATA CENTER GPU MAX", None),
)

_WARNED = set()


def get_device_name():
    """The name of this rank's accelerator (torch.cuda.get_device_name, the XPU's properties), "cpu" on
    the CPU or when torch cannot see the device."""
    from . import distributed

    device_type = distributed.get_torch_device_type()
    if device_type not in ("cuda", "xpu"):
        return "cpu"
    import torch

    module = getattr(torch, device_type, None)
    if module is None or not module.is_available():
        return "cpu"
    if device_type == "cuda":
        return torch.cuda.get_device_name(torch.cuda.current_device())
    props = torch.xpu.get_device_properties(torch.xpu.current_device())
    return getattr(props, "name", str(props))


def _intel_max_peak():
    try:
        import torch

        units = torch.xpu.get_device_properties(torch.xpu.current_device()).max_compute_units
    except Exception:  # noqa: BLE001 - no XPU runtime here: a full tile
        units = 512
    return 512.0 * units * 1.3e9


def get_peak_flops(device_name=None):
    """Peak dense BF16 FLOPS of ``device_name`` (default this rank's device), or None for the CPU and
    for a device not in the table (with one warning per name)."""
    if device_name is None:
        device_name = get_device_name()
    name = device_name.upper()
    if name == "CPU":
        return None
    for key, flops in _PEAK_FLOPS:
        if key in name:
            return flops if flops is not None else _intel_max_peak()
    if device_name not in _WARNED:
        _WARNED.add(device_name)
        import warnings

        warnings.warn(f"Peak FLOPS unknown for {device_name!r}: MFU is reported as 0", stacklevel=2)
    return None


def _dummy_input(model, input_shape, device):
    """A batch of ``input_shape``: token ids below the first embedding's size for a model with an
    embedding, else normal floats in the parameters' dtype."""
    import torch

    embedding = next((m for m in model.modules() if isinstance(m, (torch.nn.Embedding, torch.nn.EmbeddingBag))), None)
    if embedding is not None:
        return torch.randint(0, embedding.num_embeddings, tuple(input_shape), device=device), True
    dtype = next((p.dtype for p in model.parameters()), torch.float32)
    return torch.randn(*input_shape, device=device, dtype=dtype), False


def _layer_flops(module, output):
    """The forward FLOPs of one Linear or Conv call: 2 per multiply-add."""
    import torch

    if isinstance(module, torch.nn.Linear):
        return 2 * output.numel() * module.in_features
    if isinstance(module, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)):
        return 2 * output.numel() * (module.in_channels // module.groups) * math.prod(module.kernel_size)
    return 0


def _count_with_hooks(model, dummy):
    import torch

    total = [0]
    handles = [m.register_forward_hook(lambda m, i, o: total.__setitem__(0, total[0] + _layer_flops(m, o)))
               for m in model.modules() if isinstance(m, (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d,
                                                           torch.nn.Conv3d))]
    try:
        with torch.no_grad():
            model(dummy)
    finally:
        for handle in handles:
            handle.remove()
    return total[0]


def _count_with_flop_counter(model, dummy, backward):
    """FlopCounterMode's count (forward, and backward when asked); None where torch has no FlopCounterMode."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return None
    import torch

    saved = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
    with FlopCounterMode(display=False) as counter:
        output = model(dummy)
        if backward:
            loss = output if isinstance(output, torch.Tensor) else getattr(output, "loss", None)
            if loss is None and isinstance(output, (tuple, list)) and output:
                loss = output[0]
            if isinstance(loss, torch.Tensor) and loss.requires_grad:
                loss.float().sum().backward()
    for parameter, grad in zip(model.parameters(), saved):
        parameter.grad = grad  # the caller's gradients, as they were
    return int(counter.get_total_flops())


def estimate_model_flops(model, input_shape, *, device=None, backward=True):
    """FLOPs of one forward (and, with ``backward``, backward) pass of ``model`` on a batch of
    ``input_shape`` ((batch, features), (batch, sequence) for a model with an embedding, (batch,
    channels, height, width) …), on ``device`` (default where the parameters are)."""
    if device is None:
        device = next((p.device for p in model.parameters()), "cpu")
    dummy, tokens = _dummy_input(model, input_shape, device)
    counted = _count_with_flop_counter(model, dummy, backward)
    if not counted:
        forward = _count_with_hooks(model, dummy)
        counted = 3 * forward if backward else forward
    if counted > 0:
        return int(counted)
    parameters = sum(p.numel() for p in model.parameters())
    per_sample = input_shape[-1] if tokens else math.prod(input_shape[1:])
    return (6 if backward else 2) * parameters * input_shape[0] * per_sample


def try_estimate(model, input_shape, *, device=None, backward=True):
    """estimate_model_flops, or 0 with a warning when it fails; rank 0 logs the count."""
    try:
        flops = estimate_model_flops(model, input_shape, device=device, backward=backward)
    except Exception as error:  # noqa: BLE001 - a training script must go on without MFU
        logger.warning("FLOPS estimation failed: %s", error)
        return 0
    from . import distributed

    if flops > 0 and distributed.get_rank() == 0:
        logger.info("Model FLOPS (fwd%s): %.2e", "+bwd" if backward else "", flops)
    return flops


def compute_mfu(model_flops, step_duration, *, device_name=None, peak_flops=None):
    """Model FLOPs utilisation in percent: model_flops / (step_duration × peak_flops) × 100, per device
    (each data-parallel rank does the same work). ``peak_flops`` default: get_peak_flops(device_name).
    0.0 when a value is not positive or the peak is unknown (the CPU)."""
    if step_duration <= 0 or model_flops <= 0:
        return 0.0
    if peak_flops is None:
        peak_flops = get_peak_flops(device_name)
    if not peak_flops or peak_flops <= 0:
        return 0.0
    return model_flops / step_duration / peak_flops * 100.0
