"""A small, deliberately messy Python project, and the scripted sessions of the refactor
planner and patcher that work on it (the real claude executes the tool calls).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import ensure_claude
from kata import commit

from rgr.fake_model import SessionScript, Step, read, structured, write

PRICING = '''def total(items):
    t = 0
    for i in items:
        t = t + i["price"] * i["qty"]
    return t


def total_with_tax(items, rate):
    t = 0
    for i in items:
        t = t + i["price"] * i["qty"]
    return t * (1 + rate)


def calc(x):
    return round(x, 2)
'''

#: the duplicated loop extracted into a private helper: same behaviour, same public API
PRICING_DRY = '''def _subtotal(items):
    return sum(i["price"] * i["qty"] for i in items)


def total(items):
    return _subtotal(items)


def total_with_tax(items, rate):
    return _subtotal(items) * (1 + rate)


def calc(x):
    return round(x, 2)
'''

#: looks tidy, but drops the quantity: a behaviour change the tests catch
PRICING_BROKEN = PRICING_DRY.replace('i["price"] * i["qty"]', 'i["price"]')

#: renames a public function by hand: a public API change
PRICING_API = PRICING_DRY.replace("def total(items):", "def total(items, currency=None):")

ORDERS = '''from shop.pricing import calc, total


def order_summary(items):
    return "total: " + str(calc(total(items)))
'''

TESTS = '''from shop.orders import order_summary
from shop.pricing import total, total_with_tax

ITEMS = [{"price": 2.5, "qty": 2}, {"price": 1.0, "qty": 3}]


def test_total():
    assert total(ITEMS) == 8.0


def test_total_with_tax():
    assert total_with_tax(ITEMS, 0.5) == 12.0


def test_order_summary():
    assert order_summary(ITEMS) == "total: 8.0"
'''


FULL_CHECK = "import shop.pricing, shop.orders"


def make_messy_project(root: Path, extra_toml: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for key, value in (("user.name", "Messy Dev"), ("user.email", "dev@example.com"),
                       ("commit.gpgsign", "false")):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    files = {
        "pytest.ini": "[pytest]\n", ".gitignore": "__pycache__/\n",
        "shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/orders.py": ORDERS,
        "tests/test_shop.py": TESTS,
        "tdd.toml": (
            f"test_command = {json.dumps([sys.executable, '-m', 'pytest', '-q'])}\n"
            f"agent_binary = {json.dumps(str(ensure_claude()))}\n"
            "agent_timeout = 120\ncommand_timeout = 60\n"
            "[gate]\n"
            f"fast = [{json.dumps([sys.executable, '-c', 'import shop.orders'])}]\n"
            f"full = [{json.dumps([sys.executable, '-W', 'error', '-c', FULL_CHECK])}]\n"
            + extra_toml),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "initial"], cwd=root, check=True)
    return root


def batch(id: str, goal: str, scope: list[str], ops: list[str], budget: int = 40,
          **extra: Any) -> dict[str, Any]:
    return {"id": id, "goal": goal, "scope_globs": scope, "allowed_operations": ops,
            "diff_budget_loc": budget, "risk_score": 10, "verifier_level": "fast", **extra}


DEDUPE = batch("dedupe-pricing", "extract the duplicated subtotal loop",
               ["shop/pricing.py"], ["dedupe"])
RENAME = batch("rename-calc", "rename calc to round_money", ["shop/*.py"], ["rename"],
               rename={"path": "shop/pricing.py", "symbol": "calc",
                       "new_name": "round_money"})


def planner(*batches: dict[str, Any], summary: str = "tidy pricing") -> SessionScript:
    return SessionScript([read("shop/pricing.py"),
                          structured({"summary": summary, "batches": list(batches)})],
                         expect_system_contains="You are the REFACTOR PLANNER",
                         name="refactor-planner")


def patcher(batch_id: str, goal: str, content: str, path: str = "shop/pricing.py",
            extra: list[Step] | None = None) -> SessionScript:
    steps: list[Step] = [read(path), write(path, content), *(extra or []),
                         commit(f"refactor({batch_id}): {goal}", "-A"),
                         structured({"summary": goal})]
    return SessionScript(steps, expect_system_contains="You are the PATCHER",
                         name=f"patcher-{batch_id}")


ORDERS_SIMPLE = ORDERS.replace('"total: " + str(calc(total(items)))',
                               'f"total: {calc(total(items))}"')
SIMPLIFY = batch("simplify-orders", "use an f-string in order_summary", ["shop/orders.py"],
                 ["simplify"])
