"""pytest for ezpz.history (History, the summary line, finalize's files and plots), ezpz.tracker (the csv,
wandb and mlflow trackers; setup_wandb, setup_mlflow and verify_wandb) and ezpz.tplot, on one rank. The
across-rank statistics are checked under `ezpz launch -n 4` by tests/python/history_ranks_test.sh.

    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python/test_history.py
"""
import csv
import json
import logging
import math
import os
import subprocess
import sys
import types
import xml.etree.ElementTree as ElementTree

import pytest

import ezpz.history as history_module
import ezpz.tplot as tplot
import ezpz.tracker as tracker
from ezpz.history import History

# Values that zigzag, so that no plotted point lies on the line through its neighbours (a path that
# matplotlib could simplify keeps all of them).
LOSS = [1.0, 0.4, 0.8, 0.2, 0.6, 0.1]
ACC = [0.1, 0.7, 0.3, 0.9, 0.5, 0.95]


@pytest.fixture(autouse=True)
def one_rank(monkeypatch, tmp_path):
    """Each test in its own working directory (History writes ./outputs), outside any launcher or job,
    with no tracker chosen by the environment."""
    monkeypatch.chdir(tmp_path)
    for name in ("EZPZ_TRACKER_BACKENDS", "EZPZ_TRACKERS", "EZPZ_NO_DISTRIBUTED_HISTORY", "EZPZ_LOCAL_HISTORY",
                 "WANDB_DISABLED", "WANDB_MODE", "WANDB_PROJECT", "WB_PROJECT", "WB_PROJECT_NAME", "WANDB_API_KEY",
                 "MLFLOW_EXPERIMENT_NAME", "EZPZ_TPLOT_TYPE", "EZPZ_TPLOT_MARKER"):
        monkeypatch.delenv(name, raising=False)


def package_env(**variables):
    """The environment of a child python that imports this same ezpz package (the tests run elsewhere)."""
    env = {**os.environ, **variables}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(history_module.__file__)))
    return env


def warnings_from(caplog, name):
    return [r for r in caplog.records if r.name == name and r.levelno == logging.WARNING]


def trained(history, losses=LOSS, accs=ACC):
    for step, (loss, acc) in enumerate(zip(losses, accs)):
        history.update({"iter": step, "loss": loss, "acc": acc}, step=step)
    return history


# ── import ──────────────────────────────────────────────────────────────────


def test_importing_the_modules_imports_nothing_heavy():
    code = ("import sys, ezpz.history, ezpz.tracker, ezpz.tplot; "
            "print(sorted(m for m in ('torch', 'numpy', 'matplotlib', 'wandb', 'mlflow', 'h5py') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=package_env(),
                         check=True).stdout
    assert out.strip() == "[]"


# ── the summary line ────────────────────────────────────────────────────────


def test_update_returns_the_summary_line():
    history = History()
    assert not history.distributed_history  # one rank
    # Counters are padded to 9 columns (7 for epoch), floats get 6 decimals, ints and bools stay as they are.
    line = history.update({"iter": 3, "loss": 0.5, "lr": 1e-3, "ok": True, "n": 7})
    assert line == "iter=3    loss=0.500000 lr=0.001000 ok=True n=7"
    assert history.update({"epoch": 12, "loss": 0.25}, precision=2) == "epoch=12 loss=0.25"
    assert history.update({"loss": 1.0}, summarize=False) == ""
    assert history.history["loss"] == [0.5, 0.25, 1.0]


def test_the_summary_line_shows_std_inline_and_leaves_the_other_statistics_out():
    metrics = {
        "loss": 0.5, "loss/mean": 0.4, "loss/max": 0.9, "loss/min": 0.1, "loss/std": 0.157124,
        "acc": 1.0, "acc/std": 0.000279,
        "tflops": 40.0, "tflops/std": 12.97,
        "grad": 2.0, "grad/std": 0.012,
        "lr": 0.1, "lr/std": 0.2,  # a hyperparameter: no ±
        "iter": 1, "iter/std": 2.0,  # a counter: no ±, padded
        "same": 1.0, "same/std": 0.0,  # no spread: no ±
        "orphan/mean": 2.0,  # a statistic without its metric is kept
    }
    assert history_module.format_compact_summary(metrics) == (
        "loss=0.500000(±0.16) acc=1.000000(±2.8e-4) tflops=40.000000(±13) grad=2.000000(±0.012) "
        "lr=0.100000 iter=1    same=1.000000 orphan/mean=2.000000")


def test_memory_keys_become_one_token():
    history = History()
    line = history.update({"loss": 1.0, "mem_alloc": 1.5, "mem_peak_alloc": 2.0, "mem_reserved": 3.0,
                           "mem_peak_reserved": 4.0})
    assert line == "loss=1.000000 memory=1.50/2.00GiB (cur/peak)"  # no device total on the CPU
    line = history.update({"train/loss": 1.0, "train/mem_alloc": 0.5})
    assert line == "train/loss=1.000000 memory=0.50GiB (cur)"


def test_numpy_values_are_numbers():
    numpy = pytest.importorskip("numpy")
    history = History(jsonl_path="m.jsonl")
    line = history.update({"loss": numpy.float32(0.25), "n": numpy.int64(3), "v": numpy.array([1.0, 2.0])})
    assert line == "loss=0.250000 n=3 v[0]=1.000000\nv[1]=2.000000"
    record = json.loads(open("m.jsonl").read())
    assert record["metrics"] == {"loss": 0.25, "n": 3, "v": [1.0, 2.0]}


def test_torch_tensors_are_numbers():
    torch = pytest.importorskip("torch")
    history = History(jsonl_path="m.jsonl")
    assert history.update({"loss": torch.tensor(0.5), "w": torch.tensor([1.0, 3.0])}) == \
        "loss=0.500000 w[0]=1.000000\nw[1]=3.000000"
    assert history.history["loss"] == [0.5]


def test_prefixes_group_the_metrics():
    history = History()
    history.update({"train/loss": 0.5, "train/acc": 0.8})
    history.update({"eval/loss": 0.3})
    history.update({"loss": 1.0, "dt": 0.1})
    assert history.groups == {"train": {"loss": [0.5], "acc": [0.8]}, "eval": {"loss": [0.3]},
                              "": {"loss": [1.0], "dt": [0.1]}}
    assert history.history == {"train/loss": [0.5], "train/acc": [0.8], "eval/loss": [0.3], "loss": [1.0],
                               "dt": [0.1]}
    assert history.data == history.history


def test_use_wandb_is_deprecated():
    with pytest.warns(DeprecationWarning, match="use_wandb"):
        History().update({"loss": 1.0}, use_wandb=True)


def test_log_metrics_logs_one_info_line_and_the_debug_keys_apart():
    lines = []
    sink = types.SimpleNamespace(info=lambda m: lines.append(("info", m)), debug=lambda m: lines.append(("debug", m)))
    History().log_metrics({"iter": 1, "train/loss": 0.5, "hist/w": 2.0, "mem_alloc": 1.0}, logger=sink)
    # One rank: its min is its max, so no statistics; train/ is dropped as in the Python ezpz.
    assert lines == [("info", "iter=1    loss=0.500000 memory=1.00GiB (cur)"), ("debug", "hist/w=2.000000")]


def test_the_statistics_of_one_rank():
    stats = History.summarize_min_max_std({"loss": 0.5, "name": "x"})
    assert stats == {"loss/mean": 0.5, "loss/min": 0.5, "loss/max": 0.5, "loss/std": 0.0}
    assert History().summarize_distributed_min_max_std({"loss": 0.5}) == {}  # min == max: nothing to say


@pytest.mark.parametrize("backend, rank_device, expected", [
    ("gloo", "cuda", "cpu"), ("mpi", "xpu", "cpu"), ("nccl", "cuda", "cuda"), ("xccl", "xpu", "xpu"),
    ("ccl", "xpu", "xpu"), ("cpu:gloo,cuda:nccl", "cuda", "cpu"), ("cuda:nccl", "cuda", "cuda"),
    ("xpu:xccl", "xpu", "xpu"), ("something", "mps", "mps"),
])
def test_the_device_of_a_reduction_follows_the_process_groups_backend(backend, rank_device, expected):
    assert history_module._reduce_device_type(backend, rank_device) == expected


def test_distributed_history_is_off_by_environment_or_with_one_rank(monkeypatch):
    monkeypatch.setattr(tracker, "rank_and_world_size", lambda: (0, 8))
    assert History().distributed_history
    assert not History(distributed_history=False).distributed_history
    monkeypatch.setenv("EZPZ_LOCAL_HISTORY", "1")
    assert not History().distributed_history
    monkeypatch.delenv("EZPZ_LOCAL_HISTORY")
    monkeypatch.setattr(tracker, "rank_and_world_size", lambda: (0, 385))
    assert not History().distributed_history  # above 384 ranks the Python ezpz leaves it off
    monkeypatch.setattr(tracker, "rank_and_world_size", lambda: (0, 1))
    assert not History(distributed_history=True).distributed_history


# ── JSONL ───────────────────────────────────────────────────────────────────


def test_every_update_is_a_jsonl_record(tmp_path):
    history = History(report_dir=tmp_path / "reports")
    history.update({"loss": 1.23, "name": "a"})
    history.update({"loss": 0.5})
    run_id = history._run_id
    path = tmp_path / "reports" / run_id / f"{run_id}.jsonl"  # the Python ezpz's default place
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["metrics"] for r in records] == [{"loss": 1.23, "name": "a"}, {"loss": 0.5}]
    assert all(r["rank"] == 0 and "aggregated" not in r and isinstance(r["timestamp"], float) for r in records)


def test_jsonl_overwrite_truncates(tmp_path):
    (tmp_path / "m.jsonl").write_text("old\n")
    History(jsonl_path="m.jsonl").update({"a": 1})
    assert (tmp_path / "m.jsonl").read_text().startswith("old\n")
    History(jsonl_path="m.jsonl", jsonl_overwrite=True).update({"a": 2})
    assert [json.loads(line)["metrics"] for line in (tmp_path / "m.jsonl").read_text().splitlines()] == [{"a": 2}]


# ── finalize ────────────────────────────────────────────────────────────────


def test_finalize_writes_jsonl_csv_run_info_and_report(tmp_path):
    history = trained(History(report_dir=tmp_path / "reports"))
    old_jsonl = history._jsonl_path
    out = tmp_path / "out"
    result = history.finalize(outdir=out)
    assert result == {"iter": [float(i) for i in range(6)], "loss": LOSS, "acc": ACC}
    # The JSONL file moved into outdir.
    assert not old_jsonl.exists()
    records = [json.loads(line) for line in (out / old_jsonl.name).read_text().splitlines()]
    assert [r["metrics"]["loss"] for r in records] == LOSS
    # metrics.csv: a row per update, the step as its own column.
    with open(out / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["iter", "loss", "acc", "step"]
    assert [float(r["loss"]) for r in rows] == LOSS and [int(r["step"]) for r in rows] == list(range(6))
    info = json.loads((out / "run_info.json").read_text())
    assert info["Paths"]["Output Directory"] == str(out)
    assert info["Paths"]["Metrics CSV"] == str(out / "metrics.csv")
    assert info["Paths"]["Metrics JSONL"] == str(out / old_jsonl.name)
    assert info["Python"]["Version"] == ".".join(map(str, sys.version_info[:3]))
    assert "Version" in info["Torch"]
    report = (out / "report.md").read_text()
    assert "## Environment" in report and "## Metric Overview" in report and "### loss" in report
    # Text plots for every metric but the counter.
    assert sorted(p.name for p in (out / "plots" / "tplot").iterdir()) == ["acc.txt", "loss.txt"]


def test_finalize_default_outdir_and_timings(tmp_path):
    history = trained(History())
    history.finalize(run_name="myrun", timings={"train": 1.5}, plot=False)
    (folder,) = (tmp_path / "outputs" / "myrun").iterdir()  # ./outputs/<run_name>/<timestamp>
    info = json.loads((folder / "run_info.json").read_text())
    assert info["Timings"] == {"train": "1.50s"}
    assert not (folder / "plots").exists()


def test_finalize_applies_warmup(tmp_path):
    history = trained(History())
    assert history.finalize(outdir=tmp_path / "a", warmup=0.5, plot=False)["loss"] == LOSS[3:]
    assert trained(History()).finalize(outdir=tmp_path / "b", warmup=2, plot=False)["loss"] == LOSS[2:]


def colour_cycle():
    import matplotlib

    return matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))


def test_finalize_plots_each_metric_as_png_and_svg(tmp_path):
    pytest.importorskip("matplotlib")
    image = pytest.importorskip("matplotlib.image")
    history = trained(History())
    out = tmp_path / "out"
    history.finalize(outdir=out)
    names = ["acc", "iter", "loss"]  # each metric its own figure, its colour C0, C1, … in name order
    pngs = out / "plots" / "mplot" / "pngs"
    svgs = out / "plots" / "mplot" / "svgs"
    assert sorted(p.name for p in pngs.iterdir()) == [f"{n}.png" for n in names]
    assert sorted(p.name for p in svgs.iterdir()) == [f"{n}.svg" for n in names]
    colours = colour_cycle()
    for index, name in enumerate(names):
        pixels = image.imread(pngs / f"{name}.png")
        height, width = pixels.shape[:2]
        # 6.4 x 4.8 inches at 400 dpi, cut to what is drawn.
        assert 1500 < width <= 2560 and 1100 < height <= 1920 and width > height
        # The line is its colour at 35% over white: many pixels of it, none of another metric's.
        for other, hex_colour in enumerate(colours[:len(names)]):
            target = [0.35 * c + 0.65 for c in rgb(hex_colour)]
            close = ((abs(pixels[:, :, :3] - target) < 0.02).all(axis=2)).sum()
            if other == index:
                assert close > 1000, (name, hex_colour, close)
            else:
                assert close < 20, (name, hex_colour, close)
        # The SVG: one path of the metric's colour through all its points (and the legend's short sample).
        tree = ElementTree.parse(svgs / f"{name}.svg")
        strokes = {}
        for path in tree.iter("{http://www.w3.org/2000/svg}path"):
            style = path.get("style", "")
            for hex_colour in colours:
                if f"stroke: {hex_colour}" in style:
                    points = len([c for c in path.get("d", "").split() if c in ("M", "L")])
                    strokes.setdefault(hex_colour, []).append(points)
        assert sorted(strokes) == [colours[index]], (name, strokes)
        assert [n for n in strokes[colours[index]] if n > 3] == [len(LOSS)], (name, strokes)
        assert len(strokes[colours[index]]) == 2, (name, strokes)


def test_plots_are_against_the_steps_update_was_given(tmp_path):
    history = History()
    for step, loss in zip((10, 20, 40), (1.0, 0.5, 0.7)):
        history.update({"loss": loss}, step=step)
    history.finalize(outdir=tmp_path)
    text = (tmp_path / "plots" / "tplot" / "loss.txt").read_text()
    axis = [line for line in text.splitlines() if line.strip().startswith("10")]
    assert axis and axis[0].split()[-1] == "40", text


def test_without_matplotlib_the_plots_are_text(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    history = trained(History())
    history.finalize(outdir=tmp_path)
    assert not (tmp_path / "plots" / "mplot" / "pngs").exists()
    text = (tmp_path / "plots" / "tplot" / "loss.txt").read_text()
    assert "loss" in text and "┤" in text and "step" in text
    with pytest.raises(ImportError):
        history.plot_all(outdir=tmp_path / "again")


def test_prefixed_metrics_get_their_own_folders(tmp_path):
    pytest.importorskip("matplotlib")
    history = History()
    for step in range(3):
        history.update({"train/loss": LOSS[step], "train/acc": ACC[step]}, step=step)
    history.update({"eval/loss": 0.3}, step=2)
    result = history.finalize(outdir=tmp_path)
    assert result == {"train": {"loss": LOSS[:3], "acc": ACC[:3]}, "eval": {"loss": [0.3]}}
    assert sorted(p.name for p in (tmp_path / "plots" / "mplot" / "train" / "pngs").iterdir()) == \
        ["train_acc.png", "train_loss.png"]
    assert (tmp_path / "plots" / "mplot" / "eval" / "svgs" / "eval_loss.svg").is_file()
    assert (tmp_path / "plots" / "tplot" / "train" / "train_loss.txt").is_file()


def test_hdf5_only_with_h5py(tmp_path, monkeypatch):
    trained(History()).finalize(outdir=tmp_path / "without", plot=False)
    assert not list((tmp_path / "without").glob("*.h5"))  # Debian's python3 here has no h5py
    created = {}

    class File:
        def __init__(self, path, mode):
            self.path = path
            open(path, "w").close()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def create_dataset(self, name, data, maxshape):
            created[name] = list(data)

    monkeypatch.setitem(sys.modules, "h5py", types.SimpleNamespace(File=File))
    trained(History()).finalize(outdir=tmp_path / "with", plot=False)
    assert (tmp_path / "with" / "dataset.h5").is_file()
    assert created == {"iter": [float(i) for i in range(6)], "loss": LOSS, "acc": ACC}


# ── trackers ────────────────────────────────────────────────────────────────


class Recorder(tracker.TrackerBackend):
    name = "recorder"

    def __init__(self):
        self.logs, self.configs, self.tables, self.finished = [], [], [], False

    def log(self, metrics, step=None, commit=True):
        self.logs.append((metrics, step))

    def log_config(self, config):
        self.configs.append(config)

    def log_table(self, key, columns, data):
        self.tables.append((key, columns, data))

    def finish(self):
        self.finished = True


def test_history_feeds_its_tracker(tmp_path):
    backend = Recorder()
    history = History(tracker=tracker.Tracker([backend]), config={"lr": 1e-4})
    history.update({"loss": 0.5}, step=42)
    history.finalize(outdir=tmp_path, plot=False)
    assert backend.configs == [{"lr": 1e-4}]
    assert backend.logs == [({"loss": 0.5}, 42)]
    assert backend.tables == [("training_history", ["loss"], [[0.5]])] and backend.finished


def test_no_backends_is_the_null_tracker():
    assert isinstance(History().tracker, tracker.NullTracker)


def test_a_failing_backend_is_a_warning(caplog):
    class Broken(Recorder):
        name = "broken"

        def log(self, metrics, step=None, commit=True):
            raise RuntimeError("down")

    good = Recorder()
    tracker.Tracker([Broken(), good]).log({"loss": 1.0})
    assert good.logs == [({"loss": 1.0}, None)]
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1


def test_the_csv_tracker_writes_metrics_and_config_and_finalize_moves_it(tmp_path):
    history = History(backends="csv", outdir=tmp_path / "first", config={"lr": 0.1})
    history.update({"loss": 0.5, "lr": 0.1}, step=0)
    history.update({"loss": 0.3, "lr": 0.1, "grad_norm": 0.8}, step=1)  # a new column
    with open(tmp_path / "first" / "metrics.csv", newline="") as handle:
        assert list(csv.reader(handle)) == [["loss", "lr", "step", "grad_norm"], ["0.5", "0.1", "0", ""],
                                            ["0.3", "0.1", "1", "0.8"]]
    assert json.loads((tmp_path / "first" / "config.json").read_text()) == {"lr": 0.1}
    history.update({"loss": 0.2, "lr": 0.1, "grad_norm": 0.7}, step=2)  # the same columns: appended
    history.finalize(outdir=tmp_path / "final", plot=False)
    assert not (tmp_path / "first" / "metrics.csv").exists()
    with open(tmp_path / "final" / "metrics.csv", newline="") as handle:
        assert [r["loss"] for r in csv.DictReader(handle)] == ["0.5", "0.3", "0.2"]
    assert (tmp_path / "final" / "training_history.csv").is_file()


def test_the_environment_chooses_backends(monkeypatch, tmp_path, caplog):
    monkeypatch.setenv("EZPZ_TRACKER_BACKENDS", "csv")
    assert History(outdir=tmp_path).tracker.get_backend("csv") is not None
    assert tracker.resolve_backend_names("none") == [] and tracker.resolve_backend_names(" a, b ") == ["a", "b"]
    assert isinstance(tracker.setup_tracker(backends="none"), tracker.NullTracker)
    assert isinstance(tracker.setup_tracker(backends="nonesuch"), tracker.NullTracker)
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1


def fake_wandb(monkeypatch, api_key=None, fail=False):
    calls = []

    class Config(dict):
        def update(self, values, allow_val_change=None):
            super().update(values)

    run = types.SimpleNamespace(config=Config(), name="run", project="p", url="http://x", watch=lambda *a, **k: None)
    module = types.ModuleType("wandb")

    def init(**options):
        calls.append(options)
        if fail:
            raise RuntimeError("no network")
        module.run = run
        return run

    module.init, module.run, module.api = init, None, types.SimpleNamespace(api_key=api_key)
    module.Settings = lambda **kwargs: kwargs
    module.log = lambda *a, **k: calls.append(("log", a, k))
    module.finish = lambda: calls.append("finish")
    monkeypatch.setitem(sys.modules, "wandb", module)
    return module, run, calls


def test_setup_wandb_without_wandb_is_none_with_one_warning(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "wandb", None)
    assert tracker.setup_wandb(project_name="p") is None
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1
    caplog.clear()
    assert tracker.verify_wandb() is False
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1


@pytest.mark.parametrize("name, value", [("WANDB_DISABLED", "true"), ("WANDB_DISABLED", "1"),
                                         ("WANDB_MODE", "disabled"), ("WANDB_MODE", "Disabled")])
def test_setup_wandb_switched_off_is_none_with_one_warning(monkeypatch, caplog, name, value):
    _, _, calls = fake_wandb(monkeypatch, api_key="k")
    monkeypatch.setenv(name, value)
    assert tracker.setup_wandb(project_name="p") is None
    assert calls == []
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1
    assert tracker.verify_wandb() is False


def test_setup_wandb_starts_a_run_on_rank_0(monkeypatch, caplog):
    _, run, calls = fake_wandb(monkeypatch)
    monkeypatch.setenv("WANDB_DISABLED", "false")  # wandb's own reading: not disabled
    monkeypatch.setenv("WANDB_MODE", "offline")  # offline needs no credentials
    monkeypatch.setenv("WANDB_PROJECT", "from-env")
    assert tracker.verify_wandb() is True
    assert tracker.setup_wandb(config={"lr": 1}, tags=["a"]) is run
    (options,) = calls
    assert options["project"] == "from-env" and options["mode"] == "offline" and options["tags"] == ["a"]
    assert "entity" not in options  # what was not given is not passed
    assert run.config["config"] == {"lr": 1} and run.config["working_directory"] == os.getcwd()
    assert warnings_from(caplog, "ezpz.tracker") == []


def test_setup_wandb_failures_are_none_with_one_warning(monkeypatch, caplog):
    fake_wandb(monkeypatch, api_key=None)
    assert tracker.setup_wandb() is None  # online without credentials
    fake_wandb(monkeypatch, api_key="k", fail=True)
    assert tracker.setup_wandb() is None  # wandb.init raises
    assert tracker.setup_wandb(mode="sideways") is None
    assert len(warnings_from(caplog, "ezpz.tracker")) == 3


def test_setup_wandb_and_mlflow_off_rank_0_are_none_and_quiet(monkeypatch, caplog):
    _, _, calls = fake_wandb(monkeypatch, api_key="k")
    monkeypatch.setattr(tracker, "rank_and_world_size", lambda: (1, 2))
    assert tracker.setup_wandb() is None and tracker.setup_mlflow() is None
    assert calls == [] and warnings_from(caplog, "ezpz.tracker") == []
    # The wandb tracker of another rank logs nothing.
    backend = tracker.WandbBackend()
    backend.log({"loss": 1.0})
    assert backend.run is None and calls == []


def test_rank_1_of_a_real_launch_gets_none(tmp_path):
    # The rank from ezpz's runtime (the variables torchrun gives), not from a monkeypatch.
    code = "import ezpz.tracker as t; print(t.setup_wandb(), t.setup_mlflow(), t.verify_wandb())"
    env = package_env(RANK="1", WORLD_SIZE="2", LOCAL_RANK="1", LOCAL_WORLD_SIZE="2")
    env.pop("EZPZ_SYSTEM", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "None None False"
    assert "wandb" not in out.stderr  # no warning off rank 0


def test_setup_mlflow_without_mlflow_is_none_with_one_warning(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    assert tracker.setup_mlflow(project_name="p") is None
    assert len(warnings_from(caplog, "ezpz.tracker")) == 1


def test_setup_mlflow_and_its_tracker(monkeypatch):
    calls = []
    run = types.SimpleNamespace(info=types.SimpleNamespace(experiment_id="1", run_id="abc", run_name="r"))
    module = types.ModuleType("mlflow")
    module.set_experiment = lambda name: calls.append(("experiment", name))
    module.start_run = lambda **kwargs: run
    module.log_params = lambda params: calls.append(("params", params))
    module.log_metrics = lambda metrics, step: calls.append(("metrics", metrics, step))
    module.get_tracking_uri = lambda: "file:mlruns"
    module.end_run = lambda: calls.append("end")
    monkeypatch.setitem(sys.modules, "mlflow", module)
    monkeypatch.setenv("WB_PROJECT", "a.b")
    assert tracker.setup_mlflow() is run
    assert calls[0] == ("experiment", "a-b")  # dots become hyphens
    backend = tracker.MLflowBackend(project_name="x", config={"opt": {"lr": 1}})
    calls.clear()
    backend.log({"loss": 0.5, "loss/mean": 0.4, "name": "skipped"})
    backend.log({"loss": 0.6})
    backend.finish()
    assert calls == [("metrics", {"loss/local": 0.5, "loss/mean": 0.4}, 0), ("metrics", {"loss": 0.6}, 1), "end"]


# ── text plots ──────────────────────────────────────────────────────────────


def test_text_plot_draws_the_series_in_its_box():
    text = tplot.plot_lines([("up", [0, 1, 2, 3], [0.0, 1.0, 2.0, 3.0], "*")], width=20, height=8, title="t",
                            xlabel="step")
    lines = text.splitlines()
    box = [line for line in lines if "│" in line or "┤" in line]
    assert len(box) == 8
    body = [line[line.index("┤" if "┤" in line else "│") + 1:-1] for line in box]
    assert all(len(row) == 20 for row in body)
    assert body[0][-1] == "*" and body[-1][0] == "*"  # from the bottom left to the top right
    assert lines[-1].strip() == "step" and lines[0].strip() == "t" and "** up" in text


def test_text_plot_leaves_out_non_finite_values_and_histograms_count():
    text = tplot.plot_lines([(None, [0, 1, 2], [1.0, math.nan, 2.0], "braille")], width=10, height=4)
    assert "nan" not in text
    hist = tplot.histogram([1, 1, 1, 2], bins=2, width=10, height=3)
    rows = [line for line in hist.splitlines() if "│" in line or "┤" in line]
    assert rows[0].count("█") == 5 and rows[-1].count("█") == 10  # 3 of 4 in the left bin, 1 in the right


def test_tplot_writes_its_file(tmp_path, capsys):
    text = tplot.tplot([1, 3, 2], ylabel="loss", xlabel="step", outfile=tmp_path / "a" / "p.txt", append=False)
    assert (tmp_path / "a" / "p.txt").read_text() == text
    assert "loss vs step" in capsys.readouterr().out
