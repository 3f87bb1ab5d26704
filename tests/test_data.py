"""Tests of bandits.data: registry, verified access, parsers, recipes and the downloader.

Every parser runs on small generated files in the canonical formats, so the suite needs no data.
Tests marked by the ``real_data_dir`` / ``real_file`` fixtures use $BANDITS_DATA_DIR and skip when it
is unset or the file is absent.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandits import data as D
from bandits.data import fetch as F
from bandits.data import recipes as R
from bandits.data import registry as RG

REPO = Path(__file__).resolve().parents[1]


def sha256(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


# --------------------------------------------------------------------------------------------------
# Generated fixture files (canonical formats, a few rows each)
# --------------------------------------------------------------------------------------------------
MAGIC_ROWS = (
    "28.7967,16.0021,2.6449,0.3918,0.1982,27.7004,22.011,-8.2027,40.092,81.8828,g\n"
    "31.6036,11.7235,2.5185,0.5303,0.3773,26.2722,23.8238,-9.9574,6.3609,205.261,g\n"
    "162.052,136.031,4.0612,0.0374,0.0187,116.741,-64.858,-45.216,76.96,256.788,g\n"
    "93.7035,37.9432,3.1454,0.168,0.1011,53.2566,89.0566,-8.4089,51.704,43.6175,h\n"
)
MUSHROOM_ROWS = (
    "p,x,s,n,t,p,f,c,n,k,e,e,s,s,w,w,p,w,o,p,k,s,u\n"
    "e,x,s,y,t,a,f,c,b,k,e,c,s,s,w,w,p,w,o,p,n,n,g\n"
    "e,b,s,w,t,l,f,c,b,n,e,c,s,s,w,w,p,w,o,p,n,n,m\n"
    "p,x,y,w,t,p,f,c,n,n,e,?,s,s,w,w,p,w,o,p,k,s,u\n"
)
SHUTTLE_TRN = "50 21 77 0 28 0 27 48 22 2\n55 0 92 0 0 26 36 92 56 4\n53 0 82 0 52 -5 29 30 2 1\n"
SHUTTLE_TST = "55 0 81 0 -6 11 25 88 64 4\n56 0 96 0 52 -4 40 44 4 4\n"
ML_SMALL = (
    "userId,movieId,rating,timestamp\n"
    "1,1,4.0,964982703\n1,3,4.0,964981247\n2,1,0.5,964982224\n3,50,5.0,1147880044\n"
)
ML_100K = "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n"
ML_1M = "1::1193::5::978300760\n1::661::3::978302109\n"
FACEBOOK = "0 1\n0 2\n1 2\n2 1\n3 3\n"  # a reversed duplicate and a self-loop
AS_TXT = (
    "# Undirected graph: as20000102.txt\r\n# Nodes: 5 Edges: 6\r\n# FromNodeId\tToNodeId\r\n"
    "0\t1\r\n1\t0\r\n7\t7\r\n1\t30\r\n30\t4500\r\n30\t30\r\n"
)
TWITCH_EDGES = "from,to\n0,1\n1,2\n2,0\n3,3\n"
TWITCH_TARGET = (
    "id,days,mature,views,partner,new_id\n"
    "73045350,1459,False,9528,False,2\n61573865,1629,True,3615,False,0\n"
    "171095671,411,True,46546,True,1\n171095671,411,True,46547,True,1\n"
    "117338954,953,False,5863,False,3\n"
)
TWITCH_FEATURES = {"0": [5, 1, 5], "1": [3169], "2": [], "3": [0, 2]}


def write_data_tree(root: Path) -> Path:
    """A data directory in the canonical layout, filled with the generated files."""
    files = {
        "magic/magic04.data": MAGIC_ROWS,
        "mushroom/agaricus-lepiota.data": MUSHROOM_ROWS,
        "shuttle/shuttle.trn": SHUTTLE_TRN,
        "shuttle/shuttle.tst": SHUTTLE_TST,
        "movielens/ml-latest-small/ratings.csv": ML_SMALL,
        "movielens/ml-100k/u.data": ML_100K,
        "movielens/ml-25m/ratings.csv": ML_SMALL,
        "snap/ego-facebook/facebook_combined.txt": FACEBOOK,
        "snap/as-proxy/as20000102.txt": AS_TXT,
        "snap/twitch/ENGB/musae_ENGB_edges.csv": TWITCH_EDGES,
        "snap/twitch/ENGB/musae_ENGB_target.csv": TWITCH_TARGET,
        "snap/twitch/ENGB/musae_ENGB_features.json": json.dumps(TWITCH_FEATURES),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (root / "yelp").mkdir(parents=True, exist_ok=True)
    np.save(root / "yelp/yelp_2000users_10000items_entry.npy",
            np.array([[0, 1, 1], [0, 2, -1], [1, 0, 1]], dtype=np.int64))
    np.save(root / "yelp/yelp_2000users_10000items_features.npy", np.eye(2, 10))
    np.save(root / "yelp/yelp_10000items_2000users_features.npy", np.eye(3, 10))
    return root


@pytest.fixture
def fake_data(tmp_path, no_data_env) -> Path:
    root = write_data_tree(tmp_path / "data")
    no_data_env.setenv("BANDITS_DATA_DIR", str(root))
    return root


# --------------------------------------------------------------------------------------------------
# Parsers on generated files
# --------------------------------------------------------------------------------------------------
def test_parse_magic(fake_data):
    X, y = D.parse_magic(fake_data / "magic/magic04.data")
    assert X.shape == (4, 10) and X.dtype == np.float64
    assert X[0, 0] == pytest.approx(28.7967) and X[2, 9] == pytest.approx(256.788)
    assert y.tolist() == ["g", "g", "g", "h"]
    X2, y2 = D.load_magic(verify=False)  # through $BANDITS_DATA_DIR
    np.testing.assert_array_equal(X, X2)


def test_parse_mushroom_ordinal_codes(fake_data):
    m = D.parse_mushroom(fake_data / "mushroom/agaricus-lepiota.data")
    assert m.codes.shape == (4, 22) and m.y.tolist() == ["p", "e", "e", "p"]
    assert m.categories[0] == ("b", "x")  # cap-shape, sorted categories
    np.testing.assert_array_equal(m.codes[:, 0], [1, 1, 0, 1])
    assert m.categories[10] == ("c", "e")  # stalk-root: '?' is not a category
    np.testing.assert_array_equal(m.codes[:, 10], [1, 0, 0, -1])
    assert m.categories[2] == ("n", "w", "y")
    np.testing.assert_array_equal(m.codes[:, 2], [0, 2, 1, 1])
    assert len(D.MUSHROOM_ATTRIBUTES) == 22
    oh = D.one_hot(m.codes)
    widths = [len(np.unique(m.codes[:, j])) for j in range(22)]
    assert oh.shape == (4, sum(widths))
    np.testing.assert_array_equal(oh.sum(axis=1), 22)
    assert D.one_hot(m.codes, missing_as_level=False).sum(axis=1).tolist() == [22, 22, 22, 21]


def test_parse_mushroom_rejects_bad_rows(tmp_path):
    bad = tmp_path / "m.data"
    bad.write_text("e,x,s\n")
    with pytest.raises(ValueError):
        D.parse_mushroom(bad)


def test_parse_shuttle(fake_data):
    X, y = D.parse_shuttle(fake_data / "shuttle/shuttle.trn", fake_data / "shuttle/shuttle.tst")
    assert X.shape == (5, 9) and y.tolist() == [2, 4, 1, 4, 4]
    assert X[2, 5] == -5
    Xt, yt = D.load_shuttle("tst", verify=False)
    assert Xt.shape == (2, 9) and yt.tolist() == [4, 4]
    with pytest.raises(ValueError):
        D.load_shuttle("test")


@pytest.mark.parametrize("text", [ML_SMALL, ML_100K, ML_1M])
def test_parse_movielens_layouts(tmp_path, text):
    path = tmp_path / "ratings"
    path.write_text(text)
    r = D.parse_movielens_ratings(path)
    n = text.strip().count("\n") + 1 - (1 if text.startswith("userId") else 0)
    assert len(r.user) == len(r.item) == len(r.rating) == len(r.timestamp) == n
    assert r.user.dtype == np.int64 and r.rating.dtype == np.float64
    if text is ML_SMALL:
        assert r.user.tolist() == [1, 1, 2, 3] and r.item.tolist() == [1, 3, 1, 50]
        assert r.rating.tolist() == [4.0, 4.0, 0.5, 5.0] and r.timestamp[0] == 964982703
    if text is ML_100K:
        assert r.user.tolist() == [196, 186, 22] and r.rating.tolist() == [3, 3, 1]
    if text is ML_1M:
        assert r.item.tolist() == [1193, 661] and r.timestamp[1] == 978302109


def test_load_movielens_variants(fake_data):
    assert len(D.load_movielens(verify=False).user) == 4
    assert len(D.load_movielens("ml-100k").user) == 3  # unpinned: existence only
    assert len(D.load_movielens("ml-25m").user) == 4
    with pytest.raises(ValueError):
        D.load_movielens("ml-10")


def test_parse_yelp(fake_data):
    y = D.load_yelp(verify=False)
    assert y.entries.shape == (3, 3) and y.user_features.shape == (2, 10)
    assert y.item_features.shape == (3, 10)
    np.testing.assert_array_equal(y.user_ids, [0, 1])


def test_parse_snap_graph(fake_data):
    g = D.parse_snap_graph(fake_data / "snap/ego-facebook/facebook_combined.txt")
    assert g.n == 4  # node 3 only has a self-loop: kept, isolated
    np.testing.assert_array_equal(g.edges, [[0, 1], [0, 2], [1, 2]])
    a = D.load_as733(verify=False)  # comments, tabs, CRLF, non-contiguous ids
    np.testing.assert_array_equal(a.node_ids, [0, 1, 7, 30, 4500])
    assert a.n == 5
    np.testing.assert_array_equal(a.edges, [[0, 1], [1, 3], [3, 4]])


def test_parse_edge_list_gz_and_header(tmp_path):
    p = tmp_path / "e.txt.gz"
    with gzip.open(p, "wt") as fh:
        fh.write("# c\n5 6\n6 7\n")
    np.testing.assert_array_equal(D.parse_edge_list(p), [[5, 6], [6, 7]])
    q = tmp_path / "e.csv"
    q.write_text("from,to\n1,2\n")
    np.testing.assert_array_equal(D.parse_edge_list(q), [[1, 2]])
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    assert D.parse_edge_list(empty).shape == (0, 2)


def test_parse_twitch(fake_data):
    t = D.load_twitch("engb", verify=False)
    assert t.n == 4  # the duplicated new_id 1 keeps its first row
    np.testing.assert_array_equal(t.edges, [[0, 1], [0, 2], [1, 2]])
    np.testing.assert_array_equal(t.mature, [True, True, False, False])
    np.testing.assert_array_equal(t.views, [3615, 46546, 9528, 5863])
    np.testing.assert_array_equal(t.twitch_id, [61573865, 171095671, 73045350, 117338954])
    assert t.n_features == D.TWITCH_N_FEATURES
    F = t.feature_matrix()
    assert F.shape == (4, 3170)
    assert np.flatnonzero(F[0]).tolist() == [1, 5] and np.flatnonzero(F[1]).tolist() == [3169]
    assert F[2].sum() == 0 and np.flatnonzero(F[3]).tolist() == [0, 2]
    assert t.graph.n == 4
    with pytest.raises(ValueError):
        D.load_twitch("XX")


def test_to_undirected_graph_with_node_universe():
    g = D.to_undirected_graph([[10, 20], [20, 10]], nodes=[5, 10, 20])
    assert g.n == 3 and g.edges.tolist() == [[1, 2]]
    with pytest.raises(ValueError):
        D.to_undirected_graph([[10, 99]], nodes=[10, 20])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 40), st.integers(-5, 40)), max_size=60))
def test_to_undirected_graph_properties(pairs):
    g = D.to_undirected_graph(np.array(pairs, dtype=np.int64).reshape(-1, 2))
    e = g.edges
    assert e.shape[1] == 2 and (e[:, 0] < e[:, 1]).all()
    assert len({tuple(r) for r in e.tolist()}) == len(e)  # no duplicates
    assert g.n == len({v for p in pairs for v in p})
    if e.size:
        assert e.max() < g.n
    expect = {(min(a, b), max(a, b)) for a, b in pairs if a != b}
    got = {(int(g.node_ids[u]), int(g.node_ids[v])) for u, v in e}
    assert got == expect


def test_largest_connected_component():
    g = D.to_undirected_graph([[0, 1], [1, 2], [10, 11], [20, 21], [21, 22], [22, 23]])
    lcc = D.largest_connected_component(g)
    assert lcc.n == 4 and lcc.node_ids.tolist() == [20, 21, 22, 23]
    assert lcc.edges.tolist() == [[0, 1], [1, 2], [2, 3]]


# --------------------------------------------------------------------------------------------------
# Unix compress (.Z): a test-side compressor (checked against gzip -d when present)
# --------------------------------------------------------------------------------------------------
def lzw_compress(data: bytes, maxbits: int = 16, block_mode: bool = True) -> bytes:
    """ncompress-style LZW; emits CLEAR as soon as the table is full (block mode)."""
    res = bytearray([0x1F, 0x9D, maxbits | (0x80 if block_mode else 0)])
    state = {"acc": 0, "nacc": 0, "bits": 0, "seg": 0}

    def put(code, nb):
        state["acc"] |= code << state["nacc"]
        state["nacc"] += nb
        state["bits"] += nb
        while state["nacc"] >= 8:
            res.append(state["acc"] & 0xFF)
            state["acc"] >>= 8
            state["nacc"] -= 8

    def pad(nb):
        group = nb * 8
        target = state["seg"] + -(-(state["bits"] - state["seg"]) // group) * group
        while state["bits"] < target:
            put(0, min(8, target - state["bits"]))
        state["seg"] = state["bits"]

    if not data:
        return bytes(res)
    first = 257 if block_mode else 256
    n_bits, free_ent, table = 9, first, {}
    w = data[0]
    for c in data[1:]:
        if (w, c) in table:
            w = table[(w, c)]
            continue
        if free_ent > (1 << n_bits) and n_bits < maxbits:
            pad(n_bits)
            n_bits += 1
        put(w, n_bits)
        if free_ent < (1 << maxbits):
            table[(w, c)] = free_ent
            free_ent += 1
        elif block_mode:
            if free_ent > (1 << n_bits) and n_bits < maxbits:
                pad(n_bits)
                n_bits += 1
            put(256, n_bits)
            pad(n_bits)
            n_bits, free_ent, table = 9, first, {}
        w = c
    if free_ent > (1 << n_bits) and n_bits < maxbits:
        pad(n_bits)
        n_bits += 1
    put(w, n_bits)
    if state["nacc"]:
        res.append(state["acc"] & 0xFF)
    return bytes(res)


def _samples():
    rng = np.random.default_rng(7)
    return [
        b"",
        b"a",
        b"TOBEORNOTTOBEORTOBEORNOT#" * 3,
        b"\x00" * 50_000,
        rng.integers(0, 256, 40_000, dtype=np.uint8).tobytes(),  # fills 10/12-bit tables: CLEAR
        bytes(rng.choice(np.frombuffer(b"abc ", dtype=np.uint8), 60_000)),
        SHUTTLE_TRN.encode() * 300,
    ]


@pytest.mark.parametrize("maxbits", [10, 12, 16])
@pytest.mark.parametrize("block_mode", [True, False])
def test_unlzw_roundtrip(maxbits, block_mode):
    for blob in _samples():
        assert D.unlzw(lzw_compress(blob, maxbits, block_mode)) == blob


@pytest.mark.skipif(shutil.which("gzip") is None, reason="gzip not installed")
def test_lzw_fixture_agrees_with_gzip():
    for blob in _samples()[1:]:
        for maxbits in (10, 16):
            z = lzw_compress(blob, maxbits)
            out = subprocess.run(["gzip", "-dc"], input=z, capture_output=True, check=True).stdout
            assert out == blob


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=3000), st.integers(10, 16), st.booleans())
def test_unlzw_roundtrip_property(blob, maxbits, block_mode):
    assert D.unlzw(lzw_compress(blob, maxbits, block_mode)) == blob


def test_unlzw_rejects_garbage():
    with pytest.raises(ValueError):
        D.unlzw(b"PK\x03\x04")
    with pytest.raises(ValueError):
        D.unlzw(b"\x1f\x9d\x90" + b"\xff\xff\xff")  # first code is not a literal


def test_ncompress_decompresses_a_generated_z_file(local_http_server, tmp_path):
    """A .Z fixture made with ncompress.compress: through unlzw and through a zip member."""
    import ncompress

    blob = SHUTTLE_TRN.encode() * 400
    z = ncompress.compress(blob)
    assert z[:2] == b"\x1f\x9d"
    assert D.unlzw(z) == blob
    assert D.unlzw(lzw_compress(blob)) == ncompress.decompress(lzw_compress(blob)) == blob
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("statlog/shuttle.trn.Z", z)
    _serve(local_http_server, "/z/shuttle.zip", zbuf.getvalue())
    reg = [D.DataFile("trn", "s/shuttle.trn", sha256(blob),
                      D.Source("https://example.invalid/z/shuttle.zip", "zip"), "gen",
                      member="shuttle.trn.Z", unlzw=True)]
    res = D.download(tmp_path, base_url=local_http_server.url, registry=reg, log=None)
    assert res[0].status == "downloaded", res[0].detail
    assert (tmp_path / "s/shuttle.trn").read_bytes() == blob


# --------------------------------------------------------------------------------------------------
# Data directory, missing files, checksums
# --------------------------------------------------------------------------------------------------
def test_data_dir_unset_is_the_user_cache(no_data_env, tmp_path, monkeypatch):
    # the variable unset: the per-user cache folder (platformdirs), not an error, not created
    cache = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    home = D.data_dir()
    assert home == cache / "bandits" / "data" == D.default_data_dir()
    assert not home.exists()
    # HOME alone (no XDG variable): ~/.cache/bandits/data on Linux, through platformdirs
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    import platformdirs
    assert D.data_dir() == Path(platformdirs.user_cache_dir("bandits")) / "data"
    assert str(D.data_dir()).startswith(str(tmp_path / "user"))
    # created on demand only
    assert D.data_dir(create=True).is_dir()
    # a loader still raises, naming the variable, the default home and the fix
    with pytest.raises(D.DataNotFoundError) as err:
        D.load_magic()
    msg = str(err.value)
    assert isinstance(err.value, FileNotFoundError)
    for part in ("BANDITS_DATA_DIR", str(D.data_dir()), "make data", "python -m bandits.data ensure",
                 D.get_file("magic").url):
        assert part in msg, part


def test_data_dir_platformdirs_is_used(no_data_env, tmp_path, monkeypatch):
    import platformdirs
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda app: str(tmp_path / f"c-{app}"))
    assert D.data_dir() == tmp_path / "c-bandits" / "data"


def test_data_dir_variable(no_data_env, tmp_path):
    # a folder that does not exist yet is the data home (ensure fills it); loaders name the variable
    no_data_env.setenv("BANDITS_DATA_DIR", str(tmp_path / "nowhere"))
    assert D.data_dir() == tmp_path / "nowhere" and not (tmp_path / "nowhere").exists()
    with pytest.raises(D.DataNotFoundError, match=f"BANDITS_DATA_DIR={tmp_path / 'nowhere'}"):
        D.fetch_path("magic")
    # a path that is a file is an error naming the variable
    (tmp_path / "afile").write_text("x")
    no_data_env.setenv("BANDITS_DATA_DIR", str(tmp_path / "afile"))
    with pytest.raises(D.DataNotFoundError, match="BANDITS_DATA_DIR"):
        D.data_dir()


def test_legacy_variable_is_read(no_data_env, tmp_path):
    no_data_env.setenv("BANDIT_DATA_DIR", str(tmp_path))
    assert D.data_dir() == tmp_path


@pytest.mark.parametrize("name", ["magic", "ego-facebook", "shuttle-trn", "twitch-ENGB-edges",
                                  "movielens-ratings", "yelp-entries", "as20000102"])
def test_missing_file_error_names_variable_and_url(no_data_env, tmp_path, name):
    no_data_env.setenv("BANDITS_DATA_DIR", str(tmp_path))
    f = D.get_file(name)
    with pytest.raises(D.DataNotFoundError) as err:
        D.fetch_path(name)
    msg = str(err.value)
    assert "BANDITS_DATA_DIR" in msg and f.url in msg and "make data" in msg and f.path in msg
    if f.source.kind == "gzip":
        assert "gunzip" in msg
    if f.unlzw:
        assert "shuttle.trn.Z" in msg


def test_checksum_error_on_generated_file(fake_data):
    with pytest.raises(D.DataChecksumError) as err:
        D.fetch_path("magic")
    exc = err.value
    expected = D.get_file("magic").sha256
    found = sha256(MAGIC_ROWS.encode())
    assert exc.expected == expected and exc.found == found
    msg = str(exc)
    assert expected in msg and found in msg and "magic04.data" in msg and "make data" in msg
    with pytest.raises(D.DataChecksumError):
        D.load_magic()
    assert D.load_magic(verify=False)[0].shape == (4, 10)


def test_checksum_error_on_altered_real_file(real_file, tmp_path, no_data_env):
    src = real_file("mushroom/agaricus-lepiota.data")
    dst = tmp_path / "mushroom/agaricus-lepiota.data"
    dst.parent.mkdir()
    shutil.copyfile(src, dst)
    no_data_env.setenv("BANDITS_DATA_DIR", str(tmp_path))
    assert D.fetch_path("mushroom") == dst  # the intact copy verifies
    blob = bytearray(dst.read_bytes())
    blob[1000] = ord("x") if blob[1000] != ord("x") else ord("y")
    dst.write_bytes(bytes(blob))
    with pytest.raises(D.DataChecksumError) as err:
        D.fetch_path("mushroom")
    assert err.value.expected == D.get_file("mushroom").sha256
    assert err.value.found == sha256(bytes(blob))
    assert str(dst) in str(err.value)


def test_verification_is_cached_per_path_size_mtime(tmp_path, no_data_env, monkeypatch):
    no_data_env.setenv("BANDITS_DATA_DIR", str(tmp_path))
    path = tmp_path / "mushroom/agaricus-lepiota.data"
    path.parent.mkdir()
    path.write_text(MUSHROOM_ROWS)
    calls = []
    real = RG.file_sha256
    monkeypatch.setattr(RG, "file_sha256", lambda p, *a, **k: calls.append(p) or real(p, *a, **k))
    D.clear_verification_cache()
    for _ in range(3):
        with pytest.raises(D.DataChecksumError):
            D.fetch_path("mushroom")
    assert len(calls) == 1
    path.write_text(MUSHROOM_ROWS + MUSHROOM_ROWS)  # size (and mtime) change
    with pytest.raises(D.DataChecksumError):
        D.fetch_path("mushroom")
    assert len(calls) == 2


def test_registry_is_consistent():
    names = [f.name for f in D.REGISTRY]
    paths = [f.path for f in D.REGISTRY]
    assert len(set(names)) == len(names) and len(set(paths)) == len(paths)
    for f in D.REGISTRY:
        assert f.url.startswith("https://")
        assert f.sha256 is None or len(f.sha256) == 64
        assert f.citation
        assert f.source.kind in ("file", "gzip", "zip", "tar")
        assert (f.member is not None) == (f.source.kind in ("zip", "tar"))
    assert D.get_file("magic/magic04.data").name == "magic"
    with pytest.raises(KeyError):
        D.get_file("nope")
    assert set(D.DATASETS["twitch"]) >= {"twitch-FR-target", "twitch-readme"}


def test_registry_matches_shared_sha256sums(real_data_dir):
    sums = real_data_dir / "SHA256SUMS"
    if not sums.is_file():
        pytest.skip("no SHA256SUMS in BANDITS_DATA_DIR")
    pinned = {}
    for line in sums.read_text().splitlines():
        digest, rel = line.split(maxsplit=1)
        pinned[rel.strip().lstrip("./")] = digest
    for f in D.REGISTRY:
        if f.sha256 is not None:
            assert pinned[f.path] == f.sha256, f.path
    assert set(pinned) <= {f.path for f in D.REGISTRY}


# --------------------------------------------------------------------------------------------------
# Downloader against a local HTTP server
# --------------------------------------------------------------------------------------------------
def _serve(server, url_path: str, blob: bytes) -> None:
    target = server.root / url_path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(blob)


def _no_leftovers(dest: Path) -> None:
    left = [p for p in dest.rglob("*") if p.name.startswith(".") or p.name.endswith(".part")]
    assert left == []


def test_download_generated_archives(local_http_server, tmp_path):
    srv = local_http_server
    plain = b"plain bytes\n"
    gz_inner = b"0 1\n1 2\n"
    trn = SHUTTLE_TRN.encode() * 50
    csv_inner = b"a,b\n1,2\n"
    tar_inner = AS_TXT.encode()
    gz_blob = gzip.compress(gz_inner)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("bundle/", "")
        zf.writestr("bundle/one.csv", csv_inner)
        zf.writestr("bundle/two.trn.Z", lzw_compress(trn))
    tbuf = io.BytesIO()
    with tarfile.open(fileobj=tbuf, mode="w:gz") as tf:
        info = tarfile.TarInfo("as20000102.txt")
        info.size = len(tar_inner)
        tf.addfile(info, io.BytesIO(tar_inner))
    _serve(srv, "/p/plain.txt", plain)
    _serve(srv, "/g/edges.txt.gz", gz_blob)
    _serve(srv, "/z/bundle.zip", zbuf.getvalue())
    _serve(srv, "/t/as.tar.gz", tbuf.getvalue())

    host = "https://example.invalid"
    zsrc = D.Source(f"{host}/z/bundle.zip", "zip")
    reg = [
        D.DataFile("plain", "a/plain.txt", sha256(plain), D.Source(f"{host}/p/plain.txt"), "gen"),
        D.DataFile("gz", "b/edges.txt", sha256(gz_inner),
                   D.Source(f"{host}/g/edges.txt.gz", "gzip", sha256=sha256(gz_blob)), "gen"),
        D.DataFile("one", "c/one.csv", sha256(csv_inner), zsrc, "gen", member="one.csv"),
        D.DataFile("two", "c/two.trn", sha256(trn), zsrc, "gen", member="two.trn.Z", unlzw=True),
        D.DataFile("tar", "d/as.txt", sha256(tar_inner), D.Source(f"{host}/t/as.tar.gz", "tar"),
                   "gen", member="as20000102.txt"),
    ]
    dest = tmp_path / "dest"
    lines: list[str] = []
    res = D.download(dest, base_url=srv.url, registry=reg, log=lines.append)
    assert [r.status for r in res] == ["downloaded"] * 5, [r.detail for r in res]
    assert (dest / "a/plain.txt").read_bytes() == plain
    assert (dest / "b/edges.txt").read_bytes() == gz_inner
    assert (dest / "c/one.csv").read_bytes() == csv_inner
    assert (dest / "c/two.trn").read_bytes() == trn
    assert (dest / "d/as.txt").read_bytes() == tar_inner
    assert sum(line.startswith("fetching") for line in lines) == 4  # the zip is fetched once
    _no_leftovers(dest)
    again = D.download(dest, base_url=srv.url, registry=reg, log=None)
    assert [r.status for r in again] == ["present"] * 5
    one = D.download(dest, ["two"], base_url=srv.url, registry=reg, force=True, log=None)
    assert [(r.name, r.status) for r in one] == [("two", "downloaded")]


def test_download_checksum_mismatch(local_http_server, tmp_path, monkeypatch):
    srv = local_http_server
    good = b"expected content\n"
    _serve(srv, "/p/file.txt", b"tampered content\n")
    _serve(srv, "/g/file.gz", gzip.compress(good))
    host = "https://example.invalid"
    reg = [
        D.DataFile("file", "x/file.txt", sha256(good), D.Source(f"{host}/p/file.txt"), "gen"),
        D.DataFile("gzfile", "x/gz.txt", sha256(good),
                   D.Source(f"{host}/g/file.gz", "gzip", sha256="0" * 64), "gen"),
    ]
    dest = tmp_path / "dest"
    monkeypatch.setenv("BANDITS_DATA_BASE_URL", srv.url)  # the variable, instead of base_url=
    res = D.download(dest, registry=reg, log=None)
    assert [r.status for r in res] == ["failed", "failed"]
    assert isinstance(res[0].error, D.DataChecksumError)
    assert sha256(good) in res[0].detail and sha256(b"tampered content\n") in res[0].detail
    assert isinstance(res[1].error, D.DataChecksumError) and "0" * 64 in res[1].detail
    assert not (dest / "x/file.txt").exists() and not (dest / "x/gz.txt").exists()
    _no_leftovers(dest)


def test_download_unreachable_and_unknown_names(local_http_server, tmp_path):
    reg = [D.DataFile("gone", "x/gone.txt", "0" * 64,
                      D.Source("https://example.invalid/missing.txt"), "gen")]
    res = D.download(tmp_path, base_url=local_http_server.url, registry=reg, log=None)
    assert res[0].status == "failed" and "404" in res[0].detail
    with pytest.raises(KeyError):
        D.download(tmp_path, ["no-such-dataset"], registry=reg, log=None)


def test_download_cli_with_real_files(real_file, local_http_server, tmp_path, capsys):
    mush = real_file("mushroom/agaricus-lepiota.data").read_bytes()
    names = real_file("mushroom/agaricus-lepiota.names").read_bytes()
    mlzip = real_file("movielens/ml-latest-small.zip").read_bytes()
    srv = local_http_server
    _serve(srv, "/ml/machine-learning-databases/mushroom/agaricus-lepiota.data", mush)
    _serve(srv, "/ml/machine-learning-databases/mushroom/agaricus-lepiota.names", names)
    _serve(srv, "/datasets/movielens/ml-latest-small.zip", mlzip)
    dest = tmp_path / "data"
    argv = ["download", "--dest", str(dest), "--only", "mushroom", "movielens-ratings",
            "movielens-zip", "--base-url", srv.url]  # 'mushroom': the dataset (.data + .names)
    assert D.main(argv) == 0
    out = capsys.readouterr().out
    assert "4 downloaded" in out
    assert out.count("fetching") == 3  # the MovieLens zip is fetched once for both files
    assert D.fetch_path("movielens-ratings", root=dest).is_file()
    assert D.fetch_path("movielens-zip", root=dest).is_file()
    assert D.load_mushroom(root=dest).codes.shape == (8124, 22)
    assert D.main(argv) == 0
    assert "4 already present" in capsys.readouterr().out

    bad = bytearray(mush)
    bad[10] ^= 1
    _serve(srv, "/ml/machine-learning-databases/mushroom/agaricus-lepiota.data", bytes(bad))
    argv = ["download", "--dest", str(dest), "--only", "mushroom/agaricus-lepiota.data", "--force",
            "--base-url", srv.url]
    assert D.main(argv) == 1
    out = capsys.readouterr().out
    assert "Checksum mismatch" in out and "1 failed" in out
    assert D.fetch_path("mushroom", root=dest)  # the good copy was left in place
    _no_leftovers(dest)


def test_cli_module_entry_point(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-m", "bandits.data", "list"], capture_output=True,
                         text=True, cwd=REPO, env=env, check=True).stdout
    assert "magic/magic04.data" in out and "facebook_combined.txt.gz" in out
    res = subprocess.run([sys.executable, "-m", "bandits.data", "verify", "--dir", str(tmp_path),
                          "--only", "magic"], capture_output=True, text=True, cwd=REPO, env=env)
    assert res.returncode == 1 and "missing" in res.stdout


# --------------------------------------------------------------------------------------------------
# Data on demand: missing() and ensure()
# --------------------------------------------------------------------------------------------------
GEN_A = b"first generated file\n"
GEN_B = b"second generated file\n" * 10


def _gen_registry(srv) -> list:
    """Two generated files served by ``srv`` (paths under /gen), with canonical https addresses."""
    _serve(srv, "/gen/a.txt", GEN_A)
    _serve(srv, "/gen/b.txt.gz", gzip.compress(GEN_B))
    host = "https://data.example.org"
    return [
        D.DataFile("gen-a", "gen/a.txt", sha256(GEN_A), D.Source(f"{host}/gen/a.txt"), "gen"),
        D.DataFile("gen-b", "gen/b.txt", sha256(GEN_B), D.Source(f"{host}/gen/b.txt.gz", "gzip"),
                   "gen"),
    ]


def _fill(home: Path, reg) -> None:
    for f, blob in zip(reg, (GEN_A, GEN_B)):
        (home / f.path).parent.mkdir(parents=True, exist_ok=True)
        (home / f.path).write_bytes(blob)


def test_ensure_with_every_file_present_downloads_nothing(local_http_server, tmp_path, no_data_env):
    srv = local_http_server
    reg = _gen_registry(srv)
    home = tmp_path / "home"
    _fill(home, reg)
    no_data_env.setenv("BANDITS_DATA_DIR", str(home))
    assert D.missing(registry=reg) == [] and D.missing(["gen"], registry=reg) == []
    lines: list[str] = []
    assert D.ensure(registry=reg, base_url=srv.url, log=lines.append) == []
    assert D.ensure(["gen-a"], root=home, registry=reg, base_url=srv.url, log=None) == []
    assert srv.requests == []  # not a single request reached the server
    assert "nothing to download" in lines[-1] and str(home) in lines[-1]


def test_ensure_fetches_only_the_missing_or_invalid(local_http_server, tmp_path, no_data_env):
    srv = local_http_server
    reg = _gen_registry(srv)
    home = tmp_path / "home"
    _fill(home, reg)
    (home / "gen/b.txt").write_bytes(b"truncated")  # wrong checksum
    assert [f.name for f in D.missing(root=home, registry=reg)] == ["gen-b"]
    res = D.ensure(root=home, registry=reg, base_url=srv.url, log=None)
    assert [(r.name, r.status) for r in res] == [("gen-b", "downloaded")]
    assert srv.requests == ["/gen/b.txt.gz"]
    assert (home / "gen/b.txt").read_bytes() == GEN_B
    assert D.missing(root=home, registry=reg) == []
    _no_leftovers(home)


def test_ensure_fills_the_default_data_home(local_http_server, no_data_env):
    srv = local_http_server
    reg = _gen_registry(srv)
    home = D.data_dir()  # the (temporary) user cache: the variable is unset
    assert not home.exists()
    assert [f.name for f in D.missing(registry=reg)] == ["gen-a", "gen-b"]
    res = D.ensure(registry=reg, base_url=srv.url, log=None)
    assert [r.status for r in res] == ["downloaded", "downloaded"]
    assert (home / "gen/a.txt").read_bytes() == GEN_A
    assert D.missing(registry=reg) == []


def test_ensure_without_network_names_files_addresses_home_and_variable(tmp_path, no_data_env):
    home = tmp_path / "home"
    reg = [D.DataFile("gen-a", "gen/a.txt", sha256(GEN_A),
                      D.Source("https://data.example.org/gen/a.txt"), "gen")]
    no_data_env.setenv("BANDITS_DATA_DIR", str(home))
    # port 9 on 127.0.0.1 (discard): connection refused at once, as with no network
    with pytest.raises(D.DataUnavailableError) as err:
        D.ensure(registry=reg, base_url="http://127.0.0.1:9", timeout=5, log=None)
    msg = str(err.value)
    for part in ("gen/a.txt", "gen-a", "https://data.example.org/gen/a.txt",
                 f"BANDITS_DATA_DIR={home}", "python -m bandits.data ensure"):
        assert part in msg, part
    assert isinstance(err.value, D.DataNotFoundError)
    assert [f.name for f in err.value.files] == ["gen-a"] and err.value.root == home
    assert not (home / "gen/a.txt").exists()


def test_ensure_cli_without_network(tmp_path, no_data_env, capsys):
    argv = ["ensure", "--only", "magic", "--dir", str(tmp_path), "--base-url", "http://127.0.0.1:9",
            "--timeout", "5"]
    assert D.main(argv) == 1
    err = capsys.readouterr().err
    magic = D.get_file("magic")
    for part in (magic.path, magic.url, "BANDITS_DATA_DIR", str(tmp_path), "magic04.names"):
        assert part in err, part
    assert D.main(["ensure", "--only", "no-such-dataset", "--dir", str(tmp_path)]) == 2


def test_ensure_cli_on_the_real_data_home_downloads_nothing(real_data_dir, local_http_server,
                                                          capsys):
    """The CI case: $BANDITS_DATA_DIR holds a verified copy; ensure contacts no server."""
    if D.missing():
        pytest.skip(f"the data home {real_data_dir} lacks some files")
    assert D.main(["ensure", "--base-url", local_http_server.url]) == 0
    assert local_http_server.requests == []
    assert "nothing to download" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------------
# Recipe (a): k-means arms
# --------------------------------------------------------------------------------------------------
def _blobs(rng, k=4, per=30, d=3):
    centers = rng.normal(scale=20.0, size=(k, d))
    X = np.concatenate([c + rng.normal(size=(per, d)) for c in centers])
    truth = np.repeat(np.arange(k), per)
    return X, truth


def test_kmeans_recovers_separated_blobs():
    X, truth = _blobs(np.random.default_rng(0))
    C, labels, inertia = D.kmeans(X, 4, np.random.default_rng(1), n_init=3)
    assert C.shape == (4, 3) and labels.shape == (120,)
    # same partition up to relabelling
    pairs = {(int(t), int(lab)) for t, lab in zip(truth, labels)}
    assert len(pairs) == 4 and len({p[1] for p in pairs}) == 4
    assert inertia == pytest.approx(((X - C[labels]) ** 2).sum())


def test_kmeans_handles_duplicates_and_rejects_bad_k():
    X = np.repeat(np.eye(3), 10, axis=0)  # 3 distinct points
    C, labels, inertia = D.kmeans(X, 3, np.random.default_rng(0))
    assert sorted(np.bincount(labels).tolist()) == [10, 10, 10] and inertia == pytest.approx(0)
    with pytest.raises(ValueError):
        D.kmeans(X, 31, np.random.default_rng(0))


def test_cluster_arms_shapes_means_and_determinism():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(float)
    a = D.cluster_arms(X, y, np.random.default_rng(11), n_clusters=20, n_init=2)
    b = D.cluster_arms(X, y, np.random.default_rng(11), n_clusters=20, n_init=2)
    c = D.cluster_arms(X, y, np.random.default_rng(12), n_clusters=20, n_init=2)
    assert a.contexts.shape == (20, 5) and a.mean_rewards.shape == (20,)
    assert a.assignment.shape == (400,) and a.sizes.sum() == 400 and (a.sizes > 0).all()
    for j in range(20):
        assert a.mean_rewards[j] == pytest.approx(y[a.assignment == j].mean())
    assert np.linalg.norm(a.contexts, axis=1).max() == pytest.approx(1.0)
    np.testing.assert_allclose(a.contexts * np.linalg.norm(a.centers, axis=1).max(), a.centers)
    for field in ("contexts", "mean_rewards", "assignment"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not np.array_equal(a.assignment, c.assignment)
    raw = D.cluster_arms(X, y, np.random.default_rng(11), n_clusters=20, n_init=2, scale=None)
    np.testing.assert_array_equal(raw.contexts, a.centers)
    with pytest.raises(ValueError):
        D.cluster_arms(X, y * 2, np.random.default_rng(0))


def test_kmeans_is_sklearn_seeded_from_the_generator():
    X, _ = _blobs(np.random.default_rng(4), k=5, per=40)
    C, labels, inertia = D.kmeans(X, 5, np.random.default_rng(9), n_init=4, max_iter=50)
    from sklearn.cluster import KMeans
    seed = int(np.random.default_rng(9).integers(2**31 - 1))  # the documented seeding
    ref = KMeans(5, n_init=4, max_iter=50, random_state=seed).fit(X)
    np.testing.assert_allclose(C, ref.cluster_centers_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(labels, ref.labels_)
    assert inertia == pytest.approx(ref.inertia_) and labels.dtype == np.int64
    for bad in ({"n_init": 0}, {"max_iter": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            D.kmeans(X, 5, np.random.default_rng(0), **bad)
    with pytest.raises(ValueError, match="rng"):
        D.kmeans(X, 5, None)


_ARMS_SCRIPT = """
import hashlib, numpy as np
from bandits import data as D
rng = np.random.default_rng(3)
X = rng.normal(size=(1000, 6)); y = (X[:, 0] > 0).astype(float)
a = D.cluster_arms(X, y, np.random.default_rng(2024))
h = hashlib.sha256()
for v in (a.contexts, a.mean_rewards, a.assignment, a.centers):
    h.update(np.ascontiguousarray(v).tobytes())
print(h.hexdigest())
"""


def test_cluster_arms_identical_for_a_fixed_seed_across_runs():
    """Two runs in this process and one in a fresh process with 2 OpenMP threads: the same bytes."""
    import hashlib

    def digest():
        rng = np.random.default_rng(3)
        X = rng.normal(size=(1000, 6))
        y = (X[:, 0] > 0).astype(float)
        a = D.cluster_arms(X, y, np.random.default_rng(2024))
        h = hashlib.sha256()
        for v in (a.contexts, a.mean_rewards, a.assignment, a.centers):
            h.update(np.ascontiguousarray(v).tobytes())
        return h.hexdigest()

    first = digest()
    assert digest() == first
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _ARMS_SCRIPT], capture_output=True, text=True,
                         cwd=REPO, env=env, check=True).stdout.strip()
    assert out == first


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25)), max_size=40))
def test_largest_connected_component_agrees_with_networkx(pairs):
    import networkx as nx

    g = D.to_undirected_graph(pairs) if pairs else D.Graph(np.zeros((0, 2), np.int64), 0,
                                                            np.zeros(0, np.int64))
    lcc = D.largest_connected_component(g)
    if g.n == 0:
        assert lcc.n == 0
        return
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(g.edges.tolist())
    comps = list(nx.connected_components(G))
    best = max(len(c) for c in comps)
    expect = min((c for c in comps if len(c) == best), key=min)  # tie: the smallest node
    assert lcc.n == len(expect)
    assert lcc.node_ids.tolist() == g.node_ids[sorted(expect)].tolist()
    H = nx.relabel_nodes(G.subgraph(expect), {v: i for i, v in enumerate(sorted(expect))})
    assert {tuple(sorted(e)) for e in H.edges} == {tuple(e) for e in lcc.edges.tolist()}


def test_one_hot_without_missing_level():
    codes = np.array([[0, -1], [2, 1], [0, 1]])
    np.testing.assert_array_equal(D.one_hot(codes, missing_as_level=False),
                                  [[1, 0, 0], [0, 1, 1], [1, 0, 1]])
    np.testing.assert_array_equal(D.one_hot(np.array([[-1], [-1]]), missing_as_level=False),
                                  np.zeros((2, 0)))


def test_zscore_and_one_hot():
    Z = D.zscore(np.array([[1.0, 5.0], [3.0, 5.0]]))
    np.testing.assert_allclose(Z, [[-1.0, 0.0], [1.0, 0.0]])
    oh = D.one_hot(np.array([[0, -1], [2, 1]]))
    np.testing.assert_array_equal(oh, [[1, 0, 1, 0], [0, 1, 0, 1]])


# --------------------------------------------------------------------------------------------------
# Recipe (b): Ban et al.'s MovieLens / Yelp construction
# --------------------------------------------------------------------------------------------------
def synthetic_ratings(rng, n_users=120, n_items=300, density=0.12, rank=4):
    """Rank-``rank`` latent ratings in {1..5}, a random ``density`` of cells observed."""
    U = rng.normal(size=(n_users, rank))
    V = rng.normal(size=(n_items, rank))
    R = np.clip(np.round(3 + U @ V.T / np.sqrt(rank) + 0.5 * rng.normal(size=(n_users, n_items))),
                1, 5)
    obs = rng.random((n_users, n_items)) < density
    u, i = np.nonzero(obs)
    return u + 1000, i + 5000, R[u, i]  # raw ids that are not indices


def test_binarize_ratings_presets():
    r = np.array([0.5, 1.5, 2.0, 2.5, 4.0, 4.5, 5.0])
    np.testing.assert_array_equal(D.binarize_ratings(r), [-1, -1, -1, 1, 1, 1, 1])
    np.testing.assert_array_equal(D.binarize_ratings(r, "ban"), [-1, -1, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(
        D.binarize_ratings(r, {"positive_above": 3.5, "negative_below": 1.0}), [-1, 0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError):
        D.binarize_ratings(r, {"positive_above": 1.0, "negative_below": 3.0})


def test_ban_rating_matrix_selection_by_hand():
    # users 7 (3 entries), 8 (2), 9 (1); items 100 (3 raters), 200 (2), 300 (1)
    user = np.array([7, 7, 7, 8, 8, 9, 9])
    item = np.array([100, 200, 300, 100, 200, 100, 300])
    rating = np.array([5, 1, 3, 4, 5, 2, 3.0])
    rating[-1] = 2.5
    M, uids, iids = D.ban_rating_matrix(user, item, rating, n_users=2, n_items=2,
                                        user_pool_factor=1)
    assert uids.tolist() == [7, 8] and iids.tolist() == [100, 200]
    np.testing.assert_array_equal(M, [[1, -1], [1, 1]])
    # 'ban': +1 for > 4, -1 for < 2, the rest dropped -> (7,100,+1) (7,200,-1) (8,200,+1)
    M, uids, iids = D.ban_rating_matrix(user, item, rating, thresholds="ban", n_users=5,
                                        n_items=5)
    assert uids.tolist() == [7, 8] and iids.tolist() == [200, 100]  # user 9, item 300: no label
    np.testing.assert_array_equal(M, [[-1, 1], [1, 0]])


def test_svd_features_match_numpy_svd():
    rng = np.random.default_rng(0)
    M = rng.choice([-1, 0, 1], size=(30, 50), p=[0.1, 0.7, 0.2]).astype(np.int8)
    uf, itf = D.svd_features(M, dim=10)
    assert uf.shape == (30, 10) and itf.shape == (50, 10)
    np.testing.assert_allclose(np.linalg.norm(uf, axis=1), 1.0)
    np.testing.assert_allclose(uf[:, -1], 1 / np.sqrt(2))
    U, _, Vt = np.linalg.svd(M.astype(float), full_matrices=False)
    ref_u = R._ban_embed(U, 10)
    ref_v = R._ban_embed(Vt.T, 10)
    signs = np.sign((uf[:, :9] * ref_u[:, :9]).sum(axis=0))
    np.testing.assert_allclose(uf[:, :9], ref_u[:, :9] * signs, atol=1e-10)
    np.testing.assert_allclose(itf[:, :9], ref_v[:, :9] * signs, atol=1e-10)
    # rank-deficient: a row without singular-vector mass is [0, ..., 0, 1] / sqrt(2), like Ban's
    # normalize(); the Yelp item array has 272 such rows
    uf2, itf2 = D.svd_features(np.array([[1, 0], [0, 0]]), dim=10)
    np.testing.assert_allclose(np.linalg.norm(uf2, axis=1), [1.0, np.sqrt(0.5)])
    np.testing.assert_allclose(itf2[1], np.eye(10)[9] / np.sqrt(2))
    assert np.isfinite(uf2).all() and np.isfinite(itf2).all()


def test_ban_features_on_synthetic_ratings():
    u, i, r = synthetic_ratings(np.random.default_rng(5))
    data = D.ban_features(u, i, r, n_users=40, n_items=100, dim=10)
    assert data.user_features.shape == (40, 10) and data.item_features.shape == (100, 10)
    assert data.user_ids.min() >= 1000 and data.item_ids.min() >= 5000
    e = data.entries
    assert e.shape[1] == 3 and set(np.unique(e[:, 2])) <= {-1, 1}
    assert e[:, 0].max() < 40 and e[:, 1].max() < 100
    # entries are exactly the observed (user, item) pairs among the kept users/items
    lookup = {(a, b): c for a, b, c in zip(u, i, r)}
    for row in e[:50]:
        rating = lookup[(data.user_ids[row[0]], data.item_ids[row[1]])]
        assert (rating > 2) == (row[2] == 1)
    again = D.ban_features(u, i, r, n_users=40, n_items=100, dim=10)
    for a, b in zip(data, again):
        np.testing.assert_array_equal(a, b)


def _check_decision_sets(ds, entries, uf, itf, T, K, rewarded=1):
    assert ds.contexts.shape == (T, K, uf.shape[1] + itf.shape[1])
    assert ds.rewards.shape == (T, K) and ds.best_arm.shape == (T,)
    np.testing.assert_array_equal(ds.rewards.sum(axis=1), np.ones(T))
    np.testing.assert_array_equal(ds.rewards[np.arange(T), ds.best_arm], np.ones(T))
    np.testing.assert_array_equal(ds.contexts[..., : uf.shape[1]], uf[ds.users])
    np.testing.assert_array_equal(ds.contexts[..., uf.shape[1]:], itf[ds.items])
    label = {(a, b): c for a, b, c in entries.tolist()}
    best_pairs = zip(ds.users[np.arange(T), ds.best_arm], ds.items[np.arange(T), ds.best_arm])
    assert all(label[(int(a), int(b))] == rewarded for a, b in best_pairs)
    return label


def test_ban_decision_sets_independent_pairs():
    u, i, r = synthetic_ratings(np.random.default_rng(6))
    data = D.ban_features(u, i, r, n_users=60, n_items=150)
    T, K = 200, 20
    ds = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                             np.random.default_rng(0), T, n_arms=K)
    label = _check_decision_sets(ds, data.entries, data.user_features, data.item_features, T, K)
    for t in range(T):
        others = [(int(a), int(b)) for k, (a, b) in enumerate(zip(ds.users[t], ds.items[t]))
                  if k != ds.best_arm[t]]
        assert all(label[p] == -1 for p in others)
        assert len(set(others)) == K - 1  # distinct entries
    assert len(np.unique(ds.best_arm)) > 10  # the rewarded position is shuffled
    same = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                               np.random.default_rng(0), T, n_arms=K)
    other = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                                np.random.default_rng(1), T, n_arms=K)
    for a, b in zip(ds, same):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(ds.items, other.items)
    rev = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                              np.random.default_rng(0), 50, rewarded_label=-1)
    _check_decision_sets(rev, data.entries, data.user_features, data.item_features, 50, 20, -1)


def test_ban_decision_sets_same_user():
    u, i, r = synthetic_ratings(np.random.default_rng(7))
    data = D.ban_features(u, i, r, n_users=60, n_items=150)
    T, K = 150, 20
    ds = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                             np.random.default_rng(2), T, n_arms=K, same_user=True)
    label = _check_decision_sets(ds, data.entries, data.user_features, data.item_features, T, K)
    assert (ds.users == ds.users[:, :1]).all()
    for t in range(T):
        assert len(set(ds.items[t].tolist())) == K
        for k in range(K):
            if k != ds.best_arm[t]:
                assert label.get((int(ds.users[t, k]), int(ds.items[t, k])), -1) != 1
    same = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                               np.random.default_rng(2), T, n_arms=K, same_user=True)
    np.testing.assert_array_equal(ds.items, same.items)


@pytest.mark.parametrize("n,rows,k", [(25, 40, 19), (30, 1000, 19), (5000, 5000, 19)])
def test_rows_without_replacement_branches(n, rows, k, monkeypatch):
    monkeypatch.setattr(R, "_DENSE_DRAW_LIMIT", 20_000)  # (30, 1000): chunked; (5000, ...): iid
    out = R._rows_without_replacement(np.random.default_rng(0), n, rows, k)
    assert out.shape == (rows, k) and out.min() >= 0 and out.max() < n
    s = np.sort(out[:2000], axis=1)
    assert not (s[:, 1:] == s[:, :-1]).any()
    with pytest.raises(ValueError):
        R._rows_without_replacement(np.random.default_rng(0), 3, 2, 4)


# --------------------------------------------------------------------------------------------------
# The real data ($BANDITS_DATA_DIR)
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [f.name for f in D.REGISTRY if not f.optional])
def test_real_checksums(real_file, name):
    f = D.get_file(name)
    real_file(f.path)
    assert D.fetch_path(name).is_file()


def test_real_magic(real_file):
    real_file("magic/magic04.data")
    X, y = D.load_magic()
    assert X.shape == (19020, 10) and np.isfinite(X).all()
    assert (y == "g").sum() == 12332 and (y == "h").sum() == 6688


def test_real_mushroom(real_file):
    real_file("mushroom/agaricus-lepiota.data")
    m = D.load_mushroom()
    assert m.codes.shape == (8124, 22)
    assert (m.y == "e").sum() == 4208 and (m.y == "p").sum() == 3916
    assert (m.codes == -1).any(axis=1).sum() == 2480 and (m.codes[:, 10] == -1).sum() == 2480
    assert D.one_hot(m.codes).shape == (8124, 117)
    assert m.categories[0] == ("b", "c", "f", "k", "s", "x")


def test_real_shuttle(real_file):
    real_file("shuttle/shuttle.trn")
    real_file("shuttle/shuttle.tst")
    X, y = D.load_shuttle()
    assert X.shape == (58000, 9)
    assert np.bincount(y).tolist() == [0, 45586, 50, 171, 8903, 3267, 10, 13]
    assert D.load_shuttle("trn")[0].shape == (43500, 9)
    assert D.load_shuttle("tst")[0].shape == (14500, 9)


def test_real_movielens_and_recipe(real_file):
    real_file("movielens/ml-latest-small/ratings.csv")
    r = D.load_movielens()
    assert len(r.user) == 100836
    assert len(np.unique(r.user)) == 610 and len(np.unique(r.item)) == 9724
    assert r.rating.min() == 0.5 and r.rating.max() == 5.0
    data = D.ban_features(r.user, r.item, r.rating)  # paper thresholds keep every rating
    assert data.entries.shape == (100836, 3)
    assert (data.entries[:, 2] == 1).sum() == 87313 and (data.entries[:, 2] == -1).sum() == 13523
    assert data.user_features.shape == (610, 10) and data.item_features.shape == (9724, 10)
    np.testing.assert_allclose(np.linalg.norm(data.user_features, axis=1), 1.0)
    ban = D.ban_features(r.user, r.item, r.rating, thresholds="ban")
    assert ban.entries.shape == (27734, 3) and ban.user_features.shape[0] == 603
    ds = D.ban_decision_sets(data.entries, data.user_features, data.item_features,
                             np.random.default_rng(0), 500)
    _check_decision_sets(ds, data.entries, data.user_features, data.item_features, 500, 20)


def test_real_yelp(real_file):
    for f in ("yelp-entries", "yelp-user-features", "yelp-item-features"):
        real_file(D.get_file(f).path)
    y = D.load_yelp()
    assert y.entries.shape == (117907, 3)
    assert (y.entries[:, 2] == 1).sum() == 106583 and (y.entries[:, 2] == -1).sum() == 11324
    assert len(np.unique(y.entries[:, 0])) == 2000 and len(np.unique(y.entries[:, 1])) == 9727
    assert y.user_features.shape == (2000, 10) and y.item_features.shape == (10000, 10)
    np.testing.assert_allclose(np.linalg.norm(y.user_features, axis=1), 1.0)
    norms = np.linalg.norm(y.item_features, axis=1)
    rated = np.zeros(10000, dtype=bool)
    rated[y.entries[:, 1]] = True
    np.testing.assert_allclose(norms[rated], 1.0)  # unrated items: mostly [0,..,0,1]/sqrt(2)
    assert (np.isclose(norms, 1.0) | np.isclose(norms, np.sqrt(0.5))).all()
    assert np.isclose(norms, np.sqrt(0.5)).sum() == 272
    ds = D.ban_decision_sets(y.entries, y.user_features, y.item_features,
                             np.random.default_rng(0), 300)
    _check_decision_sets(ds, y.entries, y.user_features, y.item_features, 300, 20)


def test_real_ego_facebook(real_file):
    real_file("snap/ego-facebook/facebook_combined.txt")
    g = D.load_ego_facebook()
    assert g.n == 4039 and g.edges.shape == (88234, 2)
    assert D.largest_connected_component(g).n == 4039


def test_real_as733(real_file):
    real_file("snap/as-proxy/as20000102.txt")
    g = D.load_as733()
    assert g.n == 6474 and g.edges.shape == (12572, 2)  # 13895 lines - 1323 self-loops


# SNAP README: nodes / edges (FR: the target file has 6551 rows, 6549 distinct new_id)
TWITCH_SIZES = {"DE": (9498, 153138), "ENGB": (7126, 35324), "ES": (4648, 59382),
                "FR": (6549, 112666), "PTBR": (1912, 31299), "RU": (4385, 37304),
                "TW": (2772, 63462)}


@pytest.mark.parametrize("lang", D.TWITCH_LANGUAGES)
def test_real_twitch(real_file, lang):
    for kind in ("edges", "target", "features"):
        real_file(D.get_file(f"twitch-{lang}-{kind}").path)
    t = D.load_twitch(lang)
    assert (t.n, len(t.edges)) == TWITCH_SIZES[lang]
    assert len(t.mature) == t.n and len(t.feature_indptr) == t.n + 1
    assert t.n_features == 3170


def test_real_uci_cluster_arms(real_file):
    real_file("mushroom/agaricus-lepiota.data")
    arms = D.uci_cluster_arms("mushroom", np.random.default_rng(0), n_init=1)
    assert arms.contexts.shape == (20, 117) and arms.sizes.sum() == 8124
    assert ((arms.mean_rewards >= 0) & (arms.mean_rewards <= 1)).all()
    assert arms.mean_rewards @ arms.sizes == pytest.approx(4208)
