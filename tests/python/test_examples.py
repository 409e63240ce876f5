"""pytest for the example package (src/python/ezpz/examples, ezpz/models): ``python3 -m
ezpz.examples.minimal`` and the same under ``ezpz launch -n 2`` train the small model through the
training API and print History's summary lines; rank 0 finalizes into
outputs/ezpz.examples.minimal/<timestamp>/. Also its settings, its model, and get_example_outdir.
Torch-free parts always run; the runs need torch (skipped without it, failed under CI=true).

    PYTHONPATH=build/python EZPZ_BIN_UNDER_TEST=build/ezpz /usr/bin/python3 -m pytest tests/python/test_examples.py
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

from launch_env import cannot_run, launch_env, need_torch

# A small run: 8 steps, the History from step 3 on, a summary line every 2 steps.
SMALL = {"TRAIN_ITERS": "8", "WARMUP_ITERS": "2", "PRINT_FREQ": "2", "INPUT_SIZE": "8", "OUTPUT_SIZE": "8",
         "LAYER_SIZES": "16,8", "BATCH_SIZE": "4", "EZPZ_SYSTEM": "local"}


def test_help_names_every_setting_and_imports_no_torch():
    answer = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.argv = ['minimal', '--help']\n"
                             "try:\n    runpy.run_module('ezpz.examples.minimal', run_name='__main__')\n"
                             "except SystemExit as stop:\n    print('exit', stop.code, 'torch' in sys.modules)"],
                            capture_output=True, text=True, env=launch_env(), timeout=60)
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.startswith("usage: python3 -m ezpz.examples.minimal")
    for name in ("TRAIN_ITERS", "BATCH_SIZE", "INPUT_SIZE", "OUTPUT_SIZE", "LAYER_SIZES", "DTYPE", "WARMUP_ITERS",
                 "LOG_FREQ", "PRINT_FREQ", "SEED", "PROJECT_NAME"):
        assert f"{name}=" in answer.stdout
    assert answer.stdout.splitlines()[-1] == "exit 0 False"


def test_unexpected_arguments_exit_2():
    answer = subprocess.run([sys.executable, "-m", "ezpz.examples.minimal", "--lr", "3"], capture_output=True,
                            text=True, env=launch_env(), timeout=60)
    assert answer.returncode == 2
    assert "unexpected arguments ['--lr', '3']" in answer.stderr


def test_settings_have_the_python_ezpz_defaults_and_read_the_environment():
    from ezpz.examples import minimal

    defaults = minimal.settings({})
    assert defaults["TRAIN_ITERS"] == 500 and defaults["BATCH_SIZE"] == 64 and defaults["WARMUP_ITERS"] == 10
    assert defaults["LAYER_SIZES"] == [256, 512, 1024, 2048, 1024, 512, 256, 128]
    assert defaults["PROJECT_NAME"] == "ezpz.examples.minimal" and defaults["DTYPE"] == ""
    given = minimal.settings({"TRAIN_ITERS": "7", "LAYER_SIZES": "4, 2,", "DTYPE": "float16"})
    assert (given["TRAIN_ITERS"], given["LAYER_SIZES"], given["DTYPE"]) == (7, [4, 2], "float16")
    with pytest.raises(ValueError):
        minimal.settings({"PRINT_FREQ": "0"})
    with pytest.raises(ValueError):
        minimal.settings({"TRAIN_ITERS": "many"})


def test_dtype_is_float32_on_the_cpu_and_bfloat16_elsewhere():
    need_torch()
    import torch

    from ezpz.examples.minimal import dtype_for

    assert dtype_for("", "cpu") is torch.float32
    for device_type in ("cuda", "xpu", "mps"):
        assert dtype_for("", device_type) is torch.bfloat16
    assert dtype_for("torch.float16", "cpu") is torch.float16
    with pytest.raises(ValueError):
        dtype_for("Tensor", "cpu")


def test_sequential_linear_net_layers_and_shapes():
    need_torch()
    import torch

    from ezpz.models.minimal import SequentialLinearNet

    model = SequentialLinearNet(8, 3, [16, 4])
    linear = [layer for layer in model.layers if isinstance(layer, torch.nn.Linear)]
    assert [(layer.in_features, layer.out_features) for layer in linear] == [(8, 16), (16, 4), (4, 3)]
    assert model.layers[0] is linear[0]
    assert model(torch.zeros(5, 8)).shape == (5, 3)
    assert [type(layer).__name__ for layer in SequentialLinearNet(8, 3, None).layers] == ["Linear", "ReLU"]


def test_example_outdir_is_the_timestamp_folder_under_outputs(tmp_path, monkeypatch):
    from ezpz.examples import get_example_outdir

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EZPZ_LOG_TIMESTAMP", "2026-11-28-120000")
    assert get_example_outdir("ezpz.examples.minimal") == tmp_path / "outputs/ezpz.examples.minimal/2026-11-28-120000"
    assert (tmp_path / "outputs/ezpz.examples.minimal/2026-11-28-120000").is_dir()
    assert get_example_outdir("x", base_dir=tmp_path / "b") == tmp_path / "b/x/2026-11-28-120000"


def _losses(text):
    return re.findall(r"\bloss=([-+0-9.e]+)", text)


def _check_run(answer, outputs, ranks):
    text = answer.stdout + answer.stderr
    assert answer.returncode == 0, text
    # Steps 4 and 6 print a summary line (after the warm-up, every PRINT_FREQ), and the end repeats the last.
    assert len(_losses(text)) >= 3, text
    assert f"rank 0 of {ranks} on cpu (float32)" in text
    runs = list((outputs / "ezpz.examples.minimal").iterdir())
    assert len(runs) == 1, runs  # one folder for every rank: rank 0's timestamp
    assert any(runs[0].iterdir()), f"rank 0 finalized nothing into {runs[0]}"


def test_one_process_trains_and_prints_the_history_summary(tmp_path):
    need_torch()
    answer = subprocess.run([sys.executable, "-m", "ezpz.examples.minimal"], capture_output=True, text=True,
                            cwd=tmp_path, env=launch_env(**SMALL), timeout=240)
    _check_run(answer, tmp_path / "outputs", 1)


def test_two_ranks_under_ezpz_launch(tmp_path):
    need_torch()
    ezpz_bin = os.environ.get("EZPZ_BIN_UNDER_TEST") or shutil.which("ezpz")
    if not ezpz_bin:
        cannot_run("EZPZ_BIN_UNDER_TEST is not set and no ezpz is on PATH")
    answer = subprocess.run([ezpz_bin, "launch", "-n", "2", "--", sys.executable, "-m", "ezpz.examples.minimal"],
                            capture_output=True, text=True, cwd=tmp_path, env=launch_env(**SMALL), timeout=300)
    _check_run(answer, tmp_path / "outputs", 2)
