"""Duplicate clusters: usable links form a graph; each connected component is a cluster.

Chains (A dup B dup C) and cycles (A dup B, B dup A) both end up in one cluster with one
deterministic canonical root, which the splitter needs so that a whole cluster lands in
one split. The root is the component's sink (the issue that is nobody's duplicate); with
several sinks the smallest (repo, number), i.e. the oldest issue; with none (a cycle)
the smallest member.
"""

from __future__ import annotations

from collections.abc import Iterable

Node = tuple[str, int]


class UnionFind:
    def __init__(self) -> None:
        self.parent: dict[Node, Node] = {}

    def find(self, node: Node) -> Node:
        self.parent.setdefault(node, node)
        root = node
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[node] != root:  # path compression
            self.parent[node], node = root, self.parent[node]
        return root

    def union(self, a: Node, b: Node) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def clusters(edges: Iterable[tuple[Node, Node]]) -> dict[Node, tuple[int, Node]]:
    """Every node of `edges` (source -> canonical) -> (cluster_id, root).

    Cluster ids number the clusters in order of their roots, so they do not depend on
    the order of `edges`.
    """
    edge_list = sorted(set(edges))
    uf = UnionFind()
    out_degree: dict[Node, int] = {}
    for src, dst in edge_list:
        uf.union(src, dst)
        out_degree[src] = out_degree.get(src, 0) + 1
        out_degree.setdefault(dst, 0)
    members: dict[Node, list[Node]] = {}
    for node in sorted(out_degree):
        members.setdefault(uf.find(node), []).append(node)
    roots = {}
    for rep, nodes in members.items():
        sinks = [n for n in nodes if out_degree[n] == 0]
        roots[rep] = min(sinks) if sinks else min(nodes)
    ordered = sorted(set(roots.values()))
    ids = {root: i for i, root in enumerate(ordered)}
    return {node: (ids[roots[rep]], roots[rep]) for rep, nodes in members.items() for node in nodes}
