"""Shared pytest configuration.

GPU tests carry the ``gpu`` marker. Where no CUDA device can be used they are
skipped with the reason printed (``-ra`` is on by default), never passed
silently; ``--require-gpu`` turns that skip into a failure, for the device
machine and for any CI that has a GPU.
"""
import functools

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--require-gpu",
        action="store_true",
        default=False,
        help="fail (instead of skip) GPU tests when no usable CUDA device is present",
    )


@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason():
    """None when a CUDA device is usable through CuPy, else a sentence saying why not (gpu/device.py decides)."""
    from gpu.device import _unavailable_reason

    return _unavailable_reason()


def pytest_collection_modifyitems(config, items):
    reason = gpu_unavailable_reason()
    if reason is None:
        return
    require = config.getoption("--require-gpu")
    for item in items:
        if "gpu" in item.keywords:
            if not require:
                item.add_marker(pytest.mark.skip(reason=f"GPU test skipped: {reason}"))


def pytest_runtest_setup(item):
    if "gpu" in item.keywords and item.config.getoption("--require-gpu"):
        reason = gpu_unavailable_reason()
        if reason is not None:
            pytest.fail(f"--require-gpu was given but {reason}", pytrace=False)
