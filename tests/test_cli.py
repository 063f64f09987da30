"""The command line: run-scenario's contract (JSON out, exit 2 on a malformed file), demo, rulesets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from banshe.cli import main

GOOD = Path(__file__).resolve().parent / "scenarios" / "pinming" / "09_sheriff_vote_counts_1_5.yaml"
HEAD = "ruleset: 品茗\nplayers: [甲, 乙]\nroles: {甲: 预言家, 乙: 狼人}\n"


def test_run_scenario_prints_the_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run-scenario", str(GOOD)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ruleset"] == "品茗"
    assert [p["phase"] for p in out["phases"]] == ["开局", "第1天", "第1夜", "第2天"]
    assert out["outs"] == [{"player": "九", "phase": "第2天", "cause": "投票"}]
    assert out["sheriff"] == [{"phase": "第1天", "player": "五"}]
    assert out["winner"] is None and out["ended_in"] is None


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("ruleset: 不存在\nplayers: [甲]\n", "未知的规则"),
        ("ruleset: 品茗\nplayers: [甲, 乙]\nroles: {甲: 预言家, 乙: 吸血鬼}\n", "吸血鬼"),
        (HEAD + "phases:\n  - phase: 第1天\n    inputs:\n      - [丙, 投票, 甲]\n", "丙 不在座位表中"),
        (HEAD + "phases:\n  - phase: 第1天\n    inputs:\n      - [甲, 投票, 丙]\n", "丙 不在座位表中"),
        (HEAD + "phases:\n  - phase: 第一天\n", "未知的阶段名"),
        (HEAD + "phases:\n  - phase: 第1夜\n  - phase: 第1天\n", "阶段顺序错误"),
        ("ruleset: [\n", "YAML"),
    ],
)
def test_malformed_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, fragment: str
) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(body, encoding="utf-8")
    assert main(["run-scenario", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0]


def test_refused_inputs_do_not_fail_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "case.yaml"
    head = "ruleset: 品茗\nplayers: [甲, 乙, 丙]\nroles: {甲: 预言家, 乙: 狼人, 丙: 村民}\n"
    path.write_text(head + "phases:\n  - phase: 第1天\n    inputs:\n      - [甲, 改票, 乙]\n", encoding="utf-8")
    assert main(["run-scenario", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    day1 = next(p for p in out["phases"] if p["phase"] == "第1天")
    assert [r["index"] for r in day1["rejected"]] == [0]
    assert "改票" in day1["rejected"][0]["reason"]


@pytest.mark.parametrize(("ruleset", "players"), [("品茗", "14"), ("沉寂与取酒", "20"), ("感染", "12")])
def test_demo_plays_a_whole_game(capsys: pytest.CaptureFixture[str], ruleset: str, players: str) -> None:
    assert main(["demo", "--ruleset", ruleset, "--seed", "2", "--players", players]) == 0
    text = capsys.readouterr().out
    assert "讨论帖公示" in text and "复盘" in text and "胜利" in text


def test_python_dash_m_works() -> None:
    run = subprocess.run([sys.executable, "-m", "banshe", "rulesets"], capture_output=True, text=True, check=True)
    assert "pinming" in run.stdout and "品茗" in run.stdout and "混子入狼群" in run.stdout
