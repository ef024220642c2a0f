"""World growth: deterministic, dated after everything the world held, ids kept unique."""

from __future__ import annotations

from issues_sts.sandbox.worlds.generator import generate_world, preset
from issues_sts.sandbox.worlds.growth import Growth, grow_world


def test_growth_is_deterministic_later_and_keeps_ids_unique() -> None:
    worlds = [generate_world(preset("tiny", seed=3)) for _ in range(2)]
    before = max(i["updated_at"] for r in worlds[0].repos.values() for i in r.issues)
    old_repos = set(worlds[0].repos)
    reports = [
        grow_world(w, Growth(seed=4, new_issues=10, merges=1, new_repos=1, new_repo_issues=30))
        for w in worlds
    ]
    assert reports[0] == reports[1]
    assert [r.issues for r in worlds[0].repos.values()] == [
        r.issues for r in worlds[1].repos.values()
    ]
    corpus, report = worlds[0], reports[0]
    assert len(report.new_repos) == 1 and report.new_repos[0] not in old_repos
    comment_ids = [c["id"] for r in corpus.repos.values() for c in r.comments]
    assert len(comment_ids) == len(set(comment_ids))
    for repo, numbers in report.new_issues.items():
        data = corpus.repos[repo]
        assert len(numbers) == 10 and all(data.issue(n)["created_at"] > before for n in numbers)  # type: ignore[index]
    assert report.merges and report.duplicates
    for repo, number, target_repo, target in report.merges:
        item = corpus.repos[repo].issue(number)
        assert (
            item is not None and item["state_reason"] == "duplicate" and item["updated_at"] > before
        )
        assert corpus.repos[repo].duplicate_of[number] == (target_repo, target)
        assert any(f"#{target}" in c["body"] for c in corpus.repos[repo].comments_of(number))
