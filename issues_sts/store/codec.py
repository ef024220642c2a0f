"""The codec of the store's `raw` columns: a REST object as GitHub sent it, stored compactly."""

from __future__ import annotations

import json
import zlib
from typing import Any

from issues_sts.errors import StoreError

# A REST object is mostly boilerplate (a dozen URLs per user, reactions, label URLs) around the
# texts, which the store already keeps in columns. `pack_raw` stores it once, compactly: the
# text fields that equal their column are left out (put back by `unpack_raw`), the rest is
# zlib-compressed with a preset dictionary of GitHub's JSON vocabulary, which is what makes
# one small object compress well. The first byte names the codec.
#
# _ZDICT_V1 was cut from the objects of the first big store, the rust archive's: hence the
# `"rust-lang/rust"` near its end, which appears in every URL of that repository's objects. A
# preset dictionary only offers substrings to refer to, so any repository's objects pack and
# unpack exactly (for the others those bytes just go unused); but zlib needs the very same
# dictionary to decompress, so every blob stored so far depends on these bytes. NEVER change
# _ZDICT_V1: a different dictionary (a repository-neutral one, say) is a new codec byte, with
# unpack_raw still reading version 1.
_CODEC_V1 = 1
_ZDICT_V1 = (
    b'"user_view_type":"public"}"type":"User","url":"https://api.github.com/users/"site_admin":false,'
    b'"starred_url":"https://api.github.com/users/{/owner}{/repo}","subscriptions_url":"https://api.github.com/users/'
    b'/subscriptions","repos_url":"https://api.github.com/users//repos","received_events_url":"https://api.github.com/'
    b'users//received_events","organizations_url":"https://api.github.com/users//orgs","node_id":"MDQ6VXNlcj",'
    b'"login":"","id":,"html_url":"https://github.com/","gravatar_id":"","gists_url":"https://api.github.com/users/'
    b'/gists{/gist_id}","following_url":"https://api.github.com/users//following{/other_user}","followers_url":'
    b'"https://api.github.com/users//followers","events_url":"https://api.github.com/users//events{/privacy}",'
    b'"avatar_url":"https://avatars.githubusercontent.com/u/?v=4","user":{"updated_at":"20","url":'
    b'"https://api.github.com/repos/issues/comments/","reactions":{"+1":0,"-1":0,"confused":0,"eyes":0,"heart":0,'
    b'"hooray":0,"laugh":0,"rocket":0,"total_count":0,"url":"https://api.github.com/repos//issues//reactions"},'
    b'"performed_via_github_app":null,"node_id":"MDEyOklzc3VlQ29tbWVudD","issue_url":"https://api.github.com/repos/'
    b'/issues/","id":,"html_url":"https://github.com//issues/#issuecomment-","created_at":"20","author_association":'
    b'"CONTRIBUTOR","MEMBER","COLLABORATOR","OWNER","NONE",{"url":"https://api.github.com/repos//issues/",'
    b'"timeline_url":"https://api.github.com/repos//issues//timeline","sub_issues_summary":{"completed":0,'
    b'"percent_completed":0,"total":0},"state_reason":null,"completed","not_planned","duplicate","state":"closed",'
    b'"open","repository_url":"https://api.github.com/repos/","pull_request":{"diff_url":"https://github.com//pull/'
    b'.diff","html_url":"https://github.com//pull/","merged_at":null,"patch_url":"https://github.com//pull/.patch",'
    b'"url":"https://api.github.com/repos//pulls/"},"number":,"node_id":"MDU6SXNzdWU","MDExOlB1bGxSZXF1ZXN0",'
    b'"milestone":null,"locked":false,"labels_url":"https://api.github.com/repos//issues//labels{/name}","labels":'
    b'[{"color":"","default":false,"description":null,"id":,"name":"","node_id":"MDU6TGFiZWw","url":'
    b'"https://api.github.com/repos//labels/"}],"events_url":"https://api.github.com/repos//issues//events",'
    b'"draft":false,"comments_url":"https://api.github.com/repos//issues//comments","comments":,"closed_by":'
    b'{"closed_at":null,"author_association":"NONE","assignees":[],"assignee":null,"active_lock_reason":null,'
    b'"issue_dependencies_summary":{"blocked_by":0,"blocking":0,"total_blocked_by":0,"total_blocking":0},'
    b'"type":"Bot","Organization","rust-lang/rust","kwDO","I_kwDO","PR_kwDO","IC_kwDO","LA_kwDO","U_kwDO"'
)
_TEXT_FIELDS = ("body", "title")  # kept in columns; left out of the packed object when equal


def pack_raw(obj: dict[str, Any], texts: dict[str, str]) -> bytes:
    """`obj` compressed, without the string fields whose value is in `texts` (their columns)."""
    slim = {
        k: v for k, v in obj.items() if not (k in texts and isinstance(v, str) and v == texts[k])
    }
    data = json.dumps(slim, sort_keys=True, separators=(",", ":")).encode()
    packer = zlib.compressobj(6, zdict=_ZDICT_V1)
    return bytes([_CODEC_V1]) + packer.compress(data) + packer.flush()


def unpack_raw(value: bytes | str, texts: dict[str, str]) -> dict[str, Any]:
    """The object `pack_raw` stored (or a version-1 store's JSON text), texts put back."""
    if isinstance(value, str):
        return dict(json.loads(value))
    if not value or value[0] != _CODEC_V1:
        raise StoreError(
            "a stored object has an unknown encoding",
            hint="this store was written by a newer issues-sts",
        )
    unpacker = zlib.decompressobj(zdict=_ZDICT_V1)
    obj = dict(json.loads(unpacker.decompress(value[1:]) + unpacker.flush()))
    for key in _TEXT_FIELDS:
        if key in texts and key not in obj:
            obj[key] = texts[key]
    return obj
