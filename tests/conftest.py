"""Shared pytest set-up: hypothesis profiles and the skip rule for GPU tests.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=name``; default ``ci``):

* ``ci``  -- few, derandomized examples, no deadline: the whole CPU suite stays within a few
  minutes on a 2-core runner and a failure reproduces on every run;
* ``dev`` -- 10x the examples, randomized: for hunting bugs locally.

Tests that need CUDA carry ``@pytest.mark.gpu`` and are skipped when
``torch.cuda.is_available()`` is false.
"""

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,  # first calls compile/initialise things; timing is tested separately
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile("ci", max_examples=25, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=250, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (torch.cuda.is_available() is False)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
