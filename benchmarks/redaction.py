"""Redaction against a labelled set of secret and near-secret strings, next to detect-secrets.

    python -m benchmarks.redaction

`LABELLED` holds strings as they appear in issue texts: secrets of every kind the redactor
knows (classic 40-hex GitHub tokens in the contexts people paste them in: `token=`, configs,
`Authorization:`, URLs, `curl -u`), and near-secrets that must survive: commit SHAs (also 40
hex), digests, UUIDs, placeholders. Printed: recall on secrets and false redactions on
near-secrets for the redactor and for detect-secrets (all default plugins, and without its
two entropy plugins, which flag every SHA). The labels were written by an AI assistant.

Then, where ../shared/data holds the real archives (their stores cached under data/cache, as
`issues-sts links evaluate` caches them), the secret screen over every body and comment
of each: `redact_column`'s search, one pattern at a time, against the alternation of all
patterns it replaced; the rows flagged must be the same.
"""

from __future__ import annotations

from collections.abc import Callable

HEX40 = "3f786850e387550fdab836ed7e6dc881de23001b"
HEX40_B = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
ALNUM36 = "A1b2C3d4E5" * 3 + "xYz123"

# (text, kind it must be redacted as, or None for a near-secret that must be left alone)
LABELLED: list[tuple[str, str | None]] = [
    # classic GitHub tokens, by context
    (f"export GITHUB_TOKEN={HEX40}", "github_classic_token"),
    (f"GH_TOKEN: {HEX40}", "github_classic_token"),
    (f"github.com:\n    oauth_token: {HEX40}\n    user: me", "github_classic_token"),
    (f'{{"access_token": "{HEX40}", "scope": "repo"}}', "github_classic_token"),
    (f"//npm.pkg.github.com/:_authToken={HEX40}", "github_classic_token"),
    (f"git config --global github.token {HEX40}", "github_classic_token"),
    (f"curl -H 'Authorization: token {HEX40}' https://api.github.com/user", "authorization_header"),
    (f"git clone https://{HEX40}@github.com/me/private.git", "github_classic_token"),
    (f"git clone https://x-access-token:{HEX40}@github.com/me/r.git", "github_classic_token"),
    (f"curl -u me:{HEX40} https://api.github.com/user", "github_classic_token"),
    (f"token={HEX40}&state=open", "github_classic_token"),
    (f"password: {HEX40}", "github_classic_token"),
    # the token formats since 2021 and other services
    ("token ghp_" + ALNUM36, "github_token"),
    (
        "github_pat_"
        + "11ABCDEFG0123456789_"
        + "abcdefghij" * 3
        + "klmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01",
        "github_token",
    ),
    ("aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE", "aws_access_key_id"),
    ("AIza" + "SyB" + "x" * 32, "google_api_key"),
    ("xoxb-" + "123456789012-abcdefABCDEF", "slack_token"),
    ("hf_" + "abcdefghij" * 3 + "ABCD", "huggingface_token"),
    ("https://me:hunter2-is-long@private.example.com/simple", "url_password"),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "jwt",
    ),
    (
        "cookie jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "jwt",
    ),
    ("SENDGRID=SG." + "a" * 22 + "." + "b" * 43, "sendgrid_key"),
    ("TWILIO_SID=AC" + "0123456789abcdef" * 2, "twilio_key"),
    ("key: " + "0123456789abcdef" * 2 + "-us6", "mailchimp_key"),
    ("pypi-AgEIcHlwaS5vcmc" + "A1b2C3d4E5" * 7, "pypi_token"),
    ("sq0csp-" + "A1b2C3d4E5" * 4 + "abc", "square_secret"),
    ("bot 123456789:" + "AAH" + "A1b2C3d4E5" * 3 + "xy", "telegram_bot_token"),
    (
        "MTAyNDYwMjYwNjY0MDY3NDA4." + "GhAbCd" + "." + "A1b2C3d4E5" * 2 + "abcdefg",
        "discord_bot_token",
    ),
    ('db_password = "correct-horse-battery"', "secret_keyword"),
    ('"client_secret": "Zm9vYmFyYmF6cXV4"', "secret_keyword"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "private_key",
    ),
    # near-secrets: commit SHAs in every context they appear in, other hex and ids
    (f"Fixed in {HEX40}.", None),
    (f"commit {HEX40}\nAuthor: Someone <s@example.com>", None),
    (f"Merge: {HEX40[:7]} {HEX40_B[:7]}", None),
    (f"https://github.com/rust-lang/rust/commit/{HEX40}", None),
    (f"git checkout {HEX40} && cargo build", None),
    (f'"sha": "{HEX40}", "node_id": "C_kwDOABCD"', None),
    (f'"head_sha": "{HEX40}"', None),
    (f'serde = {{ git = "https://github.com/serde-rs/serde", rev = "{HEX40}" }}', None),
    (f"parent {HEX40}\ntree {HEX40_B}", None),
    (f"Bisected to {HEX40} (the token refactor).", None),
    (f"the token handling changed in {HEX40}", None),
    (f"rustc 1.75.0 ({HEX40[:9]} 2023-12-21)", None),
    (f"HEAD is now at {HEX40[:7]} Update README", None),
    (f"- [x] {HEX40} bump deps", None),
    ("sha256:" + "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", None),
    ("Request id 0f8fad5b-d9cb-469f-a165-70867728950e failed", None),
    ('integrity "sha512-' + "A1b2C3d4E5" * 8 + '=="', None),
    ('api_key: "<your api key>"', None),
    ('password = "${DB_PASSWORD}"', None),
    ("Use `Authorization: token <TOKEN>` with a personal access token.", None),
    ("ssh://git@github.com:22/me/repo.git", None),
    ("http://localhost:8080/api/v1/issues?token=", None),
    ("color: #3f7868; background: #e387550", None),
    ("0x3f786850e387550fdab836ed7e6dc881de23001b is the contract address", None),
    # Docker and npm registry credentials: base64 of user:password (issue 24)
    (
        '{\n  "auths": {\n    "registry.example.org": {\n      "auth": '
        '"ZGVwbG95OnMzY3IzdC1wYXNzdzByZA=="\n    }\n  }\n}',
        "docker_auth",
    ),
    (
        '{"auths": {"ghcr.io": {"email": "me@example.org"}, "registry.example.org": '
        '{"auth": "ZGVwbG95OnMzY3IzdC1wYXNzdzByZA=="}}}',
        "docker_auth",
    ),
    ("//registry.example.org/:_auth=ZGVwbG95OnMzY3IzdC1wYXNzdzByZA==", "npm_auth"),
    # look-alikes: an "auths" map without credentials, a credential helper, an "auth" setting
    ('{"auths": {"registry.example.org": {}}, "credsStore": "desktop"}', None),
    ('{"credHelpers": {"gcr.io": "gcloud"}, "auth": "required"}', None),
    ('{"oauth": {"auth": "none"}, "mode": "auth"}', None),
]


def ours(text: str) -> bool:
    from issues_sts.dataset.redact import redact_text

    return bool(redact_text(text)[1])


def ours_kind(text: str) -> set[str]:
    from issues_sts.dataset.redact import redact_text

    return set(redact_text(text)[1])


def detect_secrets_scanner(entropy: bool) -> Callable[[str], bool]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings

    names = [
        cls.__name__
        for cls in get_mapping_from_secret_type_to_class().values()
        if entropy or "HighEntropy" not in cls.__name__
    ]
    config = {"plugins_used": [{"name": n} for n in names]}

    def flagged(text: str) -> bool:
        with transient_settings(config):
            return any(True for line in text.splitlines() for _ in scan_line(line))

    return flagged


def score(flagged: Callable[[str], bool]) -> dict[str, int]:
    secrets = [t for t, kind in LABELLED if kind]
    near = [t for t, kind in LABELLED if kind is None]
    shas = [t for t in near if HEX40 in t or HEX40[:7] in t]
    return {
        "secrets": len(secrets),
        "found": sum(map(flagged, secrets)),
        "near_secrets": len(near),
        "false": sum(map(flagged, near)),
        "commit_sha_strings": len(shas),
        "sha_false": sum(map(flagged, shas)),
    }


def main() -> None:
    rows = [
        ("issues-sts redact", score(ours)),
        ("detect-secrets (default plugins)", score(detect_secrets_scanner(entropy=True))),
        ("detect-secrets without entropy plugins", score(detect_secrets_scanner(entropy=False))),
    ]
    print(
        f"{'scanner':<40} {'secrets found':>14} {'near-secrets flagged':>21} "
        f"{'of them commit SHAs':>20}"
    )
    for name, s in rows:
        print(
            f"{name:<40} {s['found']:>6} / {s['secrets']:<6} {s['false']:>10} / "
            f"{s['near_secrets']:<8} {s['sha_false']:>9} / {s['commit_sha_strings']:<8}"
        )


def screen_speed() -> None:
    """The screen's seconds per real archive, per pattern against the alternation."""
    import time

    import polars as pl

    from issues_sts.annotations.archives import ARCHIVES, load_archive
    from issues_sts.dataset.redact import ANY_SECRET, _flagged
    from issues_sts.sandbox.archive_crawl import crawl_archive_store

    for name in ("rust", "onnxruntime", "neovim"):
        archive = ARCHIVES[name].path
        if not archive.exists():
            print(f"{name}: no archive at {archive}, skipped")
            continue
        with load_archive(name, loaders={"neovim": crawl_archive_store}) as store:
            texts = pl.concat(
                [
                    store.issues_frame(columns=("body",))["body"],
                    store.comments_frame(columns=("body",))["body"],
                ]
            )
        start = time.perf_counter()
        whole = texts.str.contains(ANY_SECRET).fill_null(False)
        whole_s = time.perf_counter() - start
        start = time.perf_counter()
        ours = _flagged(texts)
        ours_s = time.perf_counter() - start
        same = whole.to_list() == ours.to_list()
        print(
            f"{name}: {len(texts):,} bodies and comments, {int(ours.sum())} flagged "
            f"({'the same rows' if same else 'DIFFERENT rows'}): one search per pattern "
            f"{ours_s:.2f} s, the alternation {whole_s:.2f} s ({whole_s / ours_s:.1f}x)"
        )


if __name__ == "__main__":
    main()
    print()
    screen_speed()
