"""The real-code harness's check of dropped comments (benchmarks/realcode/comments.py)."""

from benchmarks.realcode.comments import dropped_comments

BEFORE = """\
if flag:  # no cover
    value = (
        1
    )
x = compute(
    2
)  # no cover
call_one()  # no cover
call_two()  # no cover
"""


def test_a_comment_gone_with_its_deleted_line_is_not_reported() -> None:
    after = "x = compute" + BEFORE.split("x = compute", 1)[1]
    assert dropped_comments(BEFORE, after) == []


def test_a_comment_dropped_from_a_kept_line_is_reported() -> None:
    after = BEFORE.replace("call_one()  # no cover", "call_one()")
    # (which of the lines holding it lost it, text alone does not tell: one is named)
    assert len(dropped_comments(BEFORE, after)) == 1
