"""What the pytest files that start ranks share: an environment without an outer launcher's variables,
and the rule for a test that cannot run (skip; with CI=true, fail)."""

import os
import subprocess
import sys

import pytest

# Variables of a launcher, a rank or an earlier ezpz that would change what the processes under test see.
LAUNCHER_VARIABLES = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                      "PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "SLURM_PROCID",
                      "PALS_RANKID", "TORCH_DEVICE", "TORCH_BACKEND", "TORCHELASTIC_RUN_ID", "EZPZ_SYSTEM",
                      "EZPZ_LOG_TIMESTAMP")


def cannot_run(why):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why} (CI=true: a test that cannot run fails)")
    pytest.skip(why)


def need_torch():
    if subprocess.run([sys.executable, "-c", "import torch.distributed"], capture_output=True).returncode != 0:
        cannot_run(f"{sys.executable} cannot import torch (Debian's python3-torch)")


def launch_env(**extra):
    """os.environ without LAUNCHER_VARIABLES, plus ``extra``."""
    env = {name: value for name, value in os.environ.items() if name not in LAUNCHER_VARIABLES}
    env.update(extra)
    return env
