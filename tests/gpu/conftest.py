"""tests/gpu runs tilec's PTX on a real GPU. Without one (no NVIDIA driver, no
device, or no `cuda.bindings` from cuda-python) every test here is skipped,
with the reason, before any of them runs."""
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    mine = [item for item in items if HERE in pathlib.Path(str(item.path)).resolve().parents]
    if not mine:
        return
    from tilec.runtime import cuda_available, unavailable_reason
    if cuda_available():
        return
    skip = pytest.mark.skip(reason=f"no CUDA GPU: {unavailable_reason()}")
    for item in mine:
        item.add_marker(skip)


def pytest_report_header(config):
    from tilec.runtime import cuda_available, device_info, unavailable_reason
    if not cuda_available():
        return f"tests/gpu: no CUDA GPU ({unavailable_reason()})"
    d = device_info()
    return f"tests/gpu: {d['name']} (sm_{d['cc'][0]}{d['cc'][1]}, {d['sms']} SMs, driver {d['driver']})"
