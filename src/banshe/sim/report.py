"""`--report`: one self-contained HTML page (tables + charts as embedded PNG images).

Charts use matplotlib (Agg). Chinese labels need a CJK font (Debian: `fonts-wqy-microhei`);
without one the charts fall back to ASCII labels (camp ids) and the page is still written.
"""

from __future__ import annotations

import base64
import html
import io
import warnings
from typing import Any

CJK_FONTS = ["WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans CJK JP", "SimHei", "Microsoft YaHei"]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    for name in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
        except ValueError:
            continue
        return name
    return None


class _Charts:
    def __init__(self) -> None:
        import matplotlib

        matplotlib.use("Agg", force=True)
        self.font = _cjk_font()
        if self.font:
            matplotlib.rcParams["font.sans-serif"] = [self.font, "DejaVu Sans"]
        matplotlib.rcParams["axes.unicode_minus"] = False

    def label(self, zh: str, ascii_text: str) -> str:
        return zh if self.font else ascii_text

    def png(self, fig: Any) -> str:
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # missing glyphs must not stop the report
            fig.tight_layout()
            fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def win_rates(self, summary: dict[str, Any]) -> str:
        import matplotlib.pyplot as plt

        rows = summary["win_rates"]
        fig, ax = plt.subplots(figsize=(6, 3.6))
        names = [self.label(r["name"], r["camp"]) for r in rows]
        rates = [r["rate"] for r in rows]
        lower = [r["rate"] - r["ci95"][0] for r in rows]
        upper = [r["ci95"][1] - r["rate"] for r in rows]
        ax.bar(names, rates, yerr=[lower, upper], capsize=6, color="#4c78a8")
        ax.set_ylim(0, 1)
        ax.set_ylabel(self.label("胜率", "win rate"))
        ax.set_title(self.label("各阵营胜率（95% 置信区间）", "win rate per camp (95% CI)"))
        for i, row in enumerate(rows):
            r = row["rate"]
            if r > 0.15:
                ax.text(i, r / 2, _pct(r), ha="center", color="white")
            else:
                ax.text(i, min(row["ci95"][1] + 0.03, 0.95), _pct(r), ha="center")
        return self.png(fig)

    def by_players(self, counts: list[int], summaries: list[dict[str, Any]]) -> str:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.6))
        camps = [(r["camp"], r["name"]) for r in summaries[0]["win_rates"]] if summaries else []
        for camp, name in camps:
            rates, lo, hi = [], [], []
            for s in summaries:
                row = next(r for r in s["win_rates"] if r["camp"] == camp)
                rates.append(row["rate"])
                lo.append(row["rate"] - row["ci95"][0])
                hi.append(row["ci95"][1] - row["rate"])
            ax.errorbar(counts, rates, yerr=[lo, hi], marker="o", capsize=4, label=self.label(name, camp))
        ax.set_ylim(0, 1)
        ax.set_xlabel(self.label("玩家人数", "players"))
        ax.set_ylabel(self.label("胜率", "win rate"))
        ax.set_xticks(counts)
        ax.set_title(self.label("胜率与玩家人数", "win rate by player count"))
        if camps:
            ax.legend()
        return self.png(fig)

    def days(self, summary: dict[str, Any]) -> str:
        import matplotlib.pyplot as plt

        hist = summary["days"]["histogram"]
        days = [int(d) for d in hist]
        games = summary["games"] or 1
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.bar(days, [hist[str(d)] / games for d in days], color="#f58518")
        ax.set_xlabel(self.label("结束于第几天", "game ended on day"))
        ax.set_ylabel(self.label("对局比例", "share of games"))
        ax.set_xticks(days)
        ax.set_title(self.label("对局长度分布", "game length (days)"))
        return self.png(fig)


def _table(headers: list[str], rows: list[list[str]], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _img(b64: str, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def _summary_tables(summary: dict[str, Any]) -> list[str]:
    parts: list[str] = []
    parts.append("<h3>胜率（95% 置信区间，Wilson）</h3>")
    parts.append(
        _table(
            ["阵营", "胜局", "胜率", "95% 置信区间"],
            [
                [r["name"], f"{r['wins']:,}", _pct(r["rate"]), f"{_pct(r['ci95'][0])} – {_pct(r['ci95'][1])}"]
                for r in summary["win_rates"]
            ],
            "wins",
        )
    )
    parts.append("<h3>结束方式</h3>")
    parts.append(
        _table(
            ["胜方", "条件", "局数", "比例"],
            [[r["name"], r["reason"], f"{r['games']:,}", _pct(r["rate"])] for r in summary["endings"]],
            "endings",
        )
    )
    parts.append(f"<h3>对局长度（平均 {summary['days']['mean']:.2f} 天）</h3>")
    games = summary["games"] or 1
    parts.append(
        _table(
            ["结束于第几天", "局数", "比例"],
            [[d, f"{k:,}", _pct(k / games)] for d, k in summary["days"]["histogram"].items()],
            "days",
        )
    )
    parts.append("<h3>各身份存活率与胜率</h3>")
    parts.append(
        _table(
            ["身份", "出场", "存活到终局", "存活率", "95% 置信区间", "所在阵营获胜"],
            [
                [
                    r["name"],
                    f"{r['seats']:,}",
                    f"{r['survived']:,}",
                    _pct(r["rate"]),
                    f"{_pct(r['ci95'][0])} – {_pct(r['ci95'][1])}",
                    _pct(r["win_rate"]),
                ]
                for r in summary["survival"]
            ],
            "survival",
        )
    )
    parts.append("<h3>技能使用（被接受的指令）</h3>")
    parts.append(
        _table(
            ["技能", "次数", "每局"],
            [[r["name"], f"{r['uses']:,}", f"{r['per_game']:.2f}"] for r in summary["skills"]],
            "skills",
        )
    )
    parts.append("<h3>技能效果与出局原因</h3>")
    parts.append(
        _table(
            ["效果", "次数", "每局"],
            [[r["effect"], f"{r['count']:,}", f"{r['per_game']:.3f}"] for r in summary["effects"]],
            "effects",
        )
    )
    return parts


_CSS = """
body{font-family:"WenQuanYi Micro Hei","Noto Sans CJK SC","Microsoft YaHei",sans-serif;margin:2em auto;max-width:980px;
color:#222;line-height:1.5;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ccc;padding:.25em .7em;text-align:right}
th{background:#f2f2f2}td:first-child,th:first-child{text-align:left}img{max-width:100%;margin:.5em 0}
.meta{color:#555}.charts{display:flex;flex-wrap:wrap;gap:1em}
"""


def render_report(result: dict[str, Any]) -> str:
    """The HTML page for a `SimResult.to_json()` dictionary."""
    charts = _Charts()
    overall = result["overall"]
    counts = [int(n) for n in result["players"]]
    per = [result["by_players"][str(n)]["summary"] for n in counts]
    run = result.get("run", {})
    title = f"{result['ruleset_name']} 平衡模拟报告"
    meta = (
        f"规则：{result['ruleset_name']}　策略：{result['policy']}"
        + "".join(f"（{role}：{spec}）" for role, spec in (result.get("role_policies") or {}).items())
        + f"　对局：{result['games']:,}"
        f"（请求 {result['games_requested']:,}）　玩家人数：{'、'.join(str(n) for n in counts)}"
        f"　种子：{result['seed']}"
    )
    if result.get("options"):
        meta += "　选项：" + "，".join(f"{k}={v}" for k, v in result["options"].items())
    if result.get("interrupted"):
        meta += "　（运行被中断，以下为已完成对局的结果）"
    if run.get("games_per_s"):
        meta += f"　速度：{run['games_per_s']:,} 局/秒（{run.get('backend')}，{run.get('jobs')} 个进程）"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="zh-CN"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(meta)}</p>',
        "<h2>图表</h2>",
        '<div class="charts">',
        _img(charts.win_rates(overall), "各阵营胜率"),
        _img(charts.by_players(counts, per), "胜率与玩家人数"),
        _img(charts.days(overall), "对局长度分布"),
        "</div>",
    ]
    if result.get("errors"):
        samples = [s for n in counts for s in result["by_players"][str(n)]["summary"]["error_samples"]]
        lines = "".join(f"<li>{s['players']}人 第{s['game']}局：{html.escape(s['error'])}</li>" for s in samples[:5])
        parts.append(f'<p class="meta">⚠ {result["errors"]:,} 局因异常中止，未计入统计：</p><ul>{lines}</ul>')
    if not charts.font:
        parts.append('<p class="meta">（未找到中文字体，图表使用英文标签；安装 fonts-wqy-microhei 可显示中文。）</p>')
    if len(counts) > 1:
        parts.append("<h2>按玩家人数</h2>")
        rows = []
        for n, s in zip(counts, per, strict=True):
            cells = [str(n), f"{s['games']:,}"]
            for r in s["win_rates"]:
                cells.append(f"{r['name']} {_pct(r['rate'])}（{_pct(r['ci95'][0])} – {_pct(r['ci95'][1])}）")
            cells.append(f"{s['days']['mean']:.2f}")
            rows.append(cells)
        camps = [r["name"] for r in per[0]["win_rates"]] if per else []
        parts.append(_table(["人数", "对局", *[f"{c}胜率" for c in camps], "平均天数"], rows, "sweep"))
    parts.append("<h2>总体</h2>")
    parts.extend(_summary_tables(overall))
    parts.append(
        '<p class="meta">置信区间为 Wilson 区间。技能效果中“出局：原因：阵营”按出局角色终局所在阵营统计；'
        "“反馈”为技能私密结果；带规则名前缀的条目由该规则的统计器给出。</p>"
    )
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(result: dict[str, Any], path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_report(result))
