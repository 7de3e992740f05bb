"""The import-graph check finds circles, upward arrows and function-level imports, and the tree has none."""

from __future__ import annotations

from pathlib import Path

from devtools import import_graph


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "chalicelib" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in {p.parent for p in (root / "chalicelib").rglob("*.py")} | {root / "chalicelib"}:
        (package / "__init__.py").touch()
    return root


def test_a_circle_hidden_in_a_function_is_still_a_circle(tmp_path):
    root = _tree(
        tmp_path,
        {
            "custody/a.py": "from chalicelib.custody import b\n",
            "custody/b.py": "def f():\n    from chalicelib.custody import a\n",
        },
    )
    graph = import_graph.build(root)
    assert import_graph.circles(graph) == [["chalicelib.custody.a", "chalicelib.custody.b"]]
    nested = import_graph.nested_internal(graph)
    assert [(i.source, i.target) for i in nested] == [("chalicelib.custody.b", "chalicelib.custody.a")]


def test_a_lower_layer_importing_a_domain_or_a_layer_beside_it_is_an_upward_arrow(tmp_path):
    root = _tree(
        tmp_path,
        {
            "platform/idempotency.py": "from chalicelib.auth import models\n",
            "mpc/parties.py": "from chalicelib.evm import rpc\nfrom chalicelib.platform import aws\n",
            "evm/rpc.py": "from chalicelib.platform import aws\nfrom chalicelib.mpc import parties\n",
            "auth/models.py": "",
            "platform/aws.py": "",
        },
    )
    arrows = {(i.source, i.target) for i in import_graph.upward(import_graph.build(root))}
    assert arrows == {
        ("chalicelib.platform.idempotency", "chalicelib.auth.models"),
        ("chalicelib.evm.rpc", "chalicelib.mpc.parties"),
    }


def test_type_only_imports_and_heavy_third_party_libraries_are_allowed(tmp_path):
    root = _tree(
        tmp_path,
        {
            "custody/a.py": "import typing\nif typing.TYPE_CHECKING:\n    from chalicelib.custody import b\n",
            "custody/b.py": "from chalicelib.custody import a\ndef f():\n    import eth_abi\n",
        },
    )
    graph = import_graph.build(root)
    assert import_graph.circles(graph) == [] and import_graph.nested_internal(graph) == []
    assert [name for _, name, _ in graph.nested_third_party] == ["eth_abi"]


def test_a_domain_importing_one_above_it_in_the_order_is_an_upward_arrow_even_inside_a_function(tmp_path):
    root = _tree(
        tmp_path,
        {
            "wallets/sending.py": "def f():\n    from chalicelib.custody import withdrawals\n",
            "custody/withdrawals.py": "from chalicelib.wallets import sending\n",  # down: allowed
            "tenancy/admin.py": "import typing\nif typing.TYPE_CHECKING:\n    from chalicelib.console import pages\n",
            "console/pages.py": "",
            "operator.py": "from chalicelib.console import pages\nfrom chalicelib.custody import withdrawals\n",
        },
    )
    graph = import_graph.build(root)
    arrows = {(i.source, i.target) for i in import_graph.upward(graph)}
    assert arrows == {
        ("chalicelib.wallets.sending", "chalicelib.custody.withdrawals"),
        ("chalicelib.tenancy.admin", "chalicelib.console.pages"),  # a type-only import counts too
    }
    # A cycle between packages, wherever its imports are written, fails the check as one.
    assert import_graph.package_circles(graph) == [["custody", "wallets"]]


def test_a_package_outside_the_declared_order_fails_the_check(tmp_path):
    root = _tree(tmp_path, {"solana/rpc.py": "from chalicelib.platform import aws\n", "platform/aws.py": ""})
    assert import_graph.undeclared(import_graph.build(root)) == ["solana"]


def test_the_tree_keeps_the_order_with_no_cycle_and_no_function_level_chalicelib_import(capsys):
    assert import_graph.main([]) == 0
    printed = capsys.readouterr().out
    lines = printed.splitlines()[1:]
    order = [line.split()[0] for line in lines if not line.startswith("    ")]
    assert order == [*import_graph.ORDER, *import_graph.ENTRY_POINTS]  # the order, each package with its size
    rooms = [line.split()[0] for line in lines if line.startswith("    ")]
    assert rooms == list(import_graph.ROOMS["custody"])  # custody's rooms, under it
    assert all("modules" in line and "lines" in line for line in printed.splitlines()[1:])


def test_a_room_importing_another_room_of_its_package_fails_the_check(tmp_path):
    root = _tree(
        tmp_path,
        {
            "custody/ledger.py": "",
            "custody/routes.py": "from chalicelib.custody.deposits import scan\n",  # the front: allowed
            "custody/accounts.py": "def f():\n    from chalicelib.custody.withdrawals import sending\n",
            "custody/deposits/scan.py": "from chalicelib.custody import ledger\n",  # shared: allowed
            "custody/withdrawals/sending.py": "from chalicelib.custody.deposits import scan\n",
        },
    )
    crossings = {(i.source, i.target) for i in import_graph.room_crossings(import_graph.build(root))}
    assert crossings == {
        ("chalicelib.custody.accounts", "chalicelib.custody.withdrawals.sending"),
        ("chalicelib.custody.withdrawals.sending", "chalicelib.custody.deposits.scan"),
    }
