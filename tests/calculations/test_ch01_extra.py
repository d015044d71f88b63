import pytest

from calculations import dataflow


def test_systolic_tpu_v1():
    s = dataflow.systolic_operand_traffic(256, 256, 700e6)
    assert s["macs"] == 65536
    assert s["naive_bytes_per_s"] == pytest.approx(65536 * 2 * 700e6)
    assert s["edge_in_bytes_per_s"] == pytest.approx(256 * 700e6)
    assert s["edge_out_bytes_per_s"] == pytest.approx(256 * 4 * 700e6)
    assert s["reuse"] == pytest.approx(512)


def test_staged_copy():
    r = dataflow.staged_copy_time(100.0, 10.0, 5.0, chunk=1.0)
    assert r["direct_s"] == pytest.approx(20.0)
    assert r["staged_whole_s"] == pytest.approx(30.0)
    assert r["chunks"] == 100
    assert r["staged_chunked_s"] == pytest.approx(0.1 + 0.2 + 99 * 0.2)
    assert r["host_bytes"] == 200.0


def test_bad_args():
    with pytest.raises(dataflow.DataflowError):
        dataflow.systolic_operand_traffic(0, 4, 1e9)
    with pytest.raises(dataflow.DataflowError):
        dataflow.staged_copy_time(1, 0, 1)
