"""State leaks (issue 12 §2): a check that changes global state must not flip the next claim.

``pollute`` changes everything a check can reasonably touch: torch's default dtype, grad mode and
thread count, the working directory, ``os.environ``, ``sys.path``, the RNGs, a library function
(monkeypatched) and a module global of the content package. ``probe`` reports all of it. Run
after ``pollute`` in the same single-worker run, the probe must measure exactly what it measures
when it runs alone; so a verdict cannot depend on ``--jobs``, ``--only`` or the claim before it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hardening.hostile_project import claim, hostile_project, verify_rows

CHECKS = '''
COUNTER = [0]


@claim_check
def pollute(ctx):
    import numpy
    import torch
    import torch.nn.functional

    torch.set_default_dtype(torch.float64)
    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    torch.manual_seed(999)
    numpy.random.seed(999)
    random.seed(999)
    os.chdir("/")
    os.environ["CLAIMCHECK_LEAK"] = "leaked"
    sys.path.insert(0, "/leaked-path")
    torch.nn.functional.relu = lambda x: x + 1000
    COUNTER[0] += 1
    return Evidence(measured=True, details="polluted")


@claim_check
def probe(ctx):
    import numpy
    import torch
    import torch.nn.functional

    state = {
        "dtype": str(torch.get_default_dtype()),
        "grad": torch.is_grad_enabled(),
        "threads": torch.get_num_threads(),
        "cwd": os.getcwd(),
        "env": os.environ.get("CLAIMCHECK_LEAK"),
        "path": "/leaked-path" in sys.path,
        "relu": float(torch.nn.functional.relu(torch.tensor([-1.0]))[0]),
        "counter": COUNTER[0],
        "torch_rng": float(torch.rand(1)[0]),
        "numpy_rng": float(numpy.random.rand()),
        "random_rng": random.random(),
    }
    return Evidence(measured=json.dumps(state, sort_keys=True))
'''


def test_a_polluting_check_does_not_change_the_next_measurement(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("a-pollute", "tinymodels.hostile:pollute", {"holds": True}),
        claim("b-probe", "tinymodels.hostile:probe", {"equals": "anything"}),
    ], CHECKS)
    _, after_pollution = verify_rows(root, "--jobs", "1")
    assert after_pollution["a-pollute"]["verdict"] == "verified"
    _, alone = verify_rows(root, "--jobs", "1", "--force", "--only", "*/b-probe")
    polluted = json.loads(after_pollution["b-probe"]["measured"])
    clean = json.loads(alone["b-probe"]["measured"])
    assert polluted == clean
    assert clean["dtype"] == "torch.float32" and clean["grad"] is True
    assert clean["env"] is None and clean["path"] is False and clean["counter"] == 0
    assert clean["relu"] == 0.0
    assert clean["cwd"] == str(root)
