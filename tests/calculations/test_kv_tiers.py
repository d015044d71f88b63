"""Chapter 9's KV tiers: residence time, the capacity a cache lifetime needs, layer-wise preload."""
import pytest

from calculations import kv_tiers as KT


def test_residence_and_ttl_are_inverse():
    w = KT.new_kv_bytes_per_s(1000, 0.5, 100)
    assert w == 50_000
    assert KT.residence_s(KT.capacity_for_ttl(300, w), w) == pytest.approx(300)
    with pytest.raises(KT.KVTierError, match="hit_share"):
        KT.new_kv_bytes_per_s(1000, 1.0, 100)


def test_layerwise_takes_the_larger_term_plus_one_layer():
    # load 10 s, compute 20 s, 10 layers: loads hide behind compute except the first
    r = KT.layerwise(kv_bytes=10, compute_s=20, layers=10, bandwidth=1)
    assert r["serial_s"] == 30
    assert r["layerwise_s"] == pytest.approx(1 + 20)
    # load-bound: compute waits for each layer's load, the last compute follows the last load
    r = KT.layerwise(kv_bytes=20, compute_s=10, layers=10, bandwidth=1)
    assert r["layerwise_s"] == pytest.approx(20 + 1)
    starts = [cs for _, _, le, cs, _ in r["schedule"]]
    assert all(cs >= le for _, _, le, cs, _ in r["schedule"]) and starts == sorted(starts)
    with pytest.raises(KT.KVTierError, match="layers"):
        KT.layerwise(1, 1, 0, 1)
