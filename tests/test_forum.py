"""The vote-post grammar (banshe.forum)."""

from __future__ import annotations

import pytest

from banshe.forum import CHANGE_VOTE, VOTE, VoteFormatError, VotePost, parse_vote


@pytest.mark.parametrize(
    "text",
    [
        "投票对象：饺子\n投票理由：饺子好吃",
        "投票对象:饺子\n投票理由:饺子好吃",
        "投票对象：饺子投票理由：饺子好吃",
        "  投票对象 ： 饺子 \n\n投票理由： 饺子好吃 ",
        "投票对象﹕饺子\n投票理由﹕饺子好吃",
    ],
)
def test_vote_format_full_and_half_width(text: str) -> None:
    assert parse_vote(text) == VotePost(VOTE, "饺子", "饺子好吃")


def test_change_vote_and_abstain() -> None:
    assert parse_vote("改票对象：包子\n改票理由：包子也好吃") == VotePost(CHANGE_VOTE, "包子", "包子也好吃")
    assert parse_vote("投票对象：弃权\n投票理由：") == VotePost(VOTE, "弃权", "")


def test_full_width_letters_in_names_are_normalized() -> None:
    vote = parse_vote("投票对象：ＡＢ１\n投票理由：x")
    assert vote is not None and vote.target == "AB1"


def test_plain_posts_are_not_votes() -> None:
    assert parse_vote("今天我觉得饺子很可疑") is None
    assert parse_vote("") is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("投票对象 饺子\n投票理由：好吃", "冒号"),
        ("投票对象：饺子", "缺少“投票理由：”"),
        ("投票对象：\n投票理由：好吃", "为空"),
        ("我要投票对象：饺子\n投票理由：好吃", "开头"),
        ("改票对象：包子\n投票理由：好吃", "缺少“改票理由：”"),
        ("投票对象：饺子\n包子\n投票理由：都好吃", "只能填写一名"),
    ],
)
def test_bad_formats_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(VoteFormatError) as err:
        parse_vote(text)
    assert reason in err.value.reason
