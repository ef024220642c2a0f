"""The pump: chains' requests run on worker threads, their pages commit on the calling thread.

A *flow* is one repository's sync written as a generator of phases; a phase is an iterable
of chains that run together. The flow resumes (on the calling thread, where it may read
the store and decide what to ask next) once every chain of its phase is finished. Several
flows run at once, so the per-repository round trips (resolve the repository, the first
page of each list, the passes over the store between phases, one thread batch at a time)
of one repository overlap with the pages of others: the crawl waits on GitHub's limits,
not on its latency. How many requests may really go out at once is not decided here: the
limiter's gate (policy in `pacing`) holds every step until the buckets and the per-minute
secondary limits allow it; the pump only keeps enough steps waiting at that gate.

Within a flow, a chain whose page just landed goes first again, so each resource advances
steadily; an IDLE chain is asked again after the next commit of its flow. Earlier flows
are served first, so repositories finish roughly in order and only a few are open at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from threading import Lock
from typing import Any, Generic, TypeVar

from issues_sts import stopping
from issues_sts.crawl.chains import IDLE, Chain, Step
from issues_sts.crawl.client import SIGNAL_SLICE, GitHubClient

K = TypeVar("K")
Phase = Iterable[Chain]
Flow = Iterator[Phase]
# what the pump says when a flow ends: its key, the exception that ended it (None: it
# completed) and the requests its steps made; raising here stops every flow
OnEnd = Callable[[K, BaseException | None, int], None]


class _Lane(Generic[K]):
    """One flow under way: its current phase and the chains of that phase."""

    def __init__(self, key: K, flow: Flow) -> None:
        self.key = key
        self.flow = flow
        self.source: Iterator[Chain] = iter(())
        self.exhausted = True  # the phase's source has no more chains
        self.ready: deque[Chain] = deque()
        self.parked: list[Chain] = []
        self.running = 0
        self.requests = 0  # added to by the workers, under the pump's lock
        self.told: int | None = None  # what `on_end` heard; None while the flow is open
        self.over = False

    def take(self) -> Chain | None:
        if self.ready:
            return self.ready.popleft()
        chain = next(self.source, None)
        self.exhausted = chain is None
        return chain


def _counted(step: Step, client: GitHubClient | None, lane: _Lane[Any], lock: Lock) -> Any:
    """Run `step` on this worker thread and charge the requests it made to its lane, here
    and whatever the step's end: a step that fails, or lands after the crawl stopped, still
    spent them (the summary's rows must add up to the run's total)."""
    before = client.counted_here() if client is not None else 0
    try:
        return step(client)  # type: ignore[arg-type]
    finally:
        if client is not None:
            with lock:
                lane.requests += client.counted_here() - before


def pump(chains: Iterable[Chain], client: GitHubClient, width: int) -> None:
    """Run `chains` (one phase of one flow) with at most `width` steps under way; a failure
    of any step or commit is raised here."""

    def raise_it(key: None, exc: BaseException | None, requests: int) -> None:
        if exc is not None:
            raise exc

    pump_flows([(None, iter([chains]))], client, width, flows_at_once=1, on_end=raise_it)


def pump_flows(
    flows: Iterable[tuple[K, Flow]],
    client: GitHubClient,
    width: int,
    *,
    flows_at_once: int,
    on_end: OnEnd[K],
    on_spent: Callable[[K, int], None] | None = None,
) -> None:
    """Run `flows`, at most `flows_at_once` at a time, with at most `width` steps under way.

    A step, a commit or a flow that raises an Exception ends that flow only (`on_end` says
    what to make of it); Ctrl-C, SIGTERM or an exception out of `on_end` stops everything:
    the client's waits end at once and no worker is joined. At the end `on_spent` hears the
    requests of each flow whose count `on_end` could not tell: one still open at a stop, or
    one whose other steps were still under way when it ended.
    """
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="crawl")
    pumped = _Pump(iter(flows), client, width, max(1, flows_at_once), on_end, pool)
    # a stop signal is raised at the loop's safe point, never inside `wait`'s taking of the
    # futures' locks: one left held there hangs the interpreter's exit (`stopping`)
    with stopping.deferred_stops():
        try:
            pumped.run()
        except BaseException:
            if client is not None:
                client.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            # cancelled, the steps under way end at once; a bounded wait lets them count
            wait(list(pumped.running), timeout=SIGNAL_SLICE)
            pumped.recount(on_spent)
            raise
        pool.shutdown(wait=True)
        pumped.recount(on_spent)


class _Pump(Generic[K]):
    def __init__(
        self,
        flows: Iterator[tuple[K, Flow]],
        client: GitHubClient,
        width: int,
        at_once: int,
        on_end: OnEnd[K],
        pool: ThreadPoolExecutor,
    ) -> None:
        self.flows = flows
        self.client = client
        self.width = width
        self.at_once = at_once
        self.on_end = on_end
        self.pool = pool
        self.lanes: list[_Lane[K]] = []
        self.ended: list[_Lane[K]] = []
        self.running: dict[Future[Any], tuple[_Lane[K], Chain]] = {}
        self.charge = Lock()  # lanes' request counts, added to by the workers

    def run(self) -> None:
        while True:
            stopping.raise_if_stopped()
            self._open()
            self._fill()
            if self._settle():
                continue  # a phase ended or parked chains woke: fill again before waiting
            if not self.running:
                if not self.lanes:
                    return
                continue
            # A bounded wait: a stop signal (noted, `stopping`) is raised within a slice, before
            # any step that ended because of it lands
            done, _ = wait(self.running, timeout=SIGNAL_SLICE, return_when=FIRST_COMPLETED)
            stopping.raise_if_stopped()
            for future in done:
                self._land(future)

    def _open(self) -> None:
        while len(self.lanes) < self.at_once:
            item = next(self.flows, None)
            if item is None:
                return
            lane = _Lane(*item)
            self.lanes.append(lane)
            self._advance(lane)

    def _advance(self, lane: _Lane[K]) -> None:
        """The lane's next phase, or its end."""
        try:
            lane.source = iter(next(lane.flow))
            lane.exhausted = False
        except StopIteration:
            self._end(lane, None)
        except Exception as exc:  # noqa: BLE001 - the flow's own failure ends the flow only
            self._end(lane, exc)

    def _end(self, lane: _Lane[K], exc: BaseException | None) -> None:
        lane.over = True
        self.lanes.remove(lane)
        self.ended.append(lane)
        close = getattr(lane.flow, "close", None)  # a generator's `finally` runs now, not at exit
        if exc is not None and close is not None:
            close()
        with self.charge:
            lane.told = lane.requests
        self.on_end(lane.key, exc, lane.told)

    def recount(self, on_spent: Callable[[K, int], None] | None) -> None:
        """Tell `on_spent` the count of every flow that `on_end` did not hear whole."""
        if on_spent is None:
            return
        with self.charge:
            counts = [(lane, lane.requests) for lane in self.ended + self.lanes]
        for lane, requests in counts:
            if lane.told != requests:
                on_spent(lane.key, requests)

    def _fill(self) -> None:
        for lane in list(self.lanes):  # earlier flows first
            while len(self.running) < self.width and not lane.over:
                try:
                    chain = lane.take()
                    if chain is None:
                        break
                    step = chain.next_step()
                except Exception as exc:  # noqa: BLE001
                    self._end(lane, exc)
                    break
                if step is IDLE:
                    lane.parked.append(chain)
                elif step is not None:
                    run = self.pool.submit(_counted, step, self.client, lane, self.charge)  # type: ignore[arg-type]
                    self.running[run] = (lane, chain)
                    lane.running += 1
            if len(self.running) >= self.width:
                return

    def _settle(self) -> bool:
        """Lanes with nothing under way and nothing left to start: wake their parked chains,
        or move them to their next phase. True when anything changed."""
        changed = False
        for lane in list(self.lanes):
            if lane.running or lane.ready or not lane.exhausted:
                continue
            changed = True
            if lane.parked:
                try:
                    if all(chain.next_step() is IDLE for chain in lane.parked):
                        raise RuntimeError("crawl chains wait on each other")  # a bug, never data
                except Exception as exc:  # noqa: BLE001
                    self._end(lane, exc)
                    continue
                lane.ready.extend(lane.parked)
                lane.parked.clear()
            else:
                self._advance(lane)
        return changed

    def _land(self, future: Future[Any]) -> None:
        lane, chain = self.running.pop(future)
        lane.running -= 1
        if lane.over:  # the flow already failed: what its other steps bring is dropped
            return
        try:
            chain.commit(future.result())
        except Exception as exc:  # noqa: BLE001
            self._end(lane, exc)
            return
        lane.ready.appendleft(chain)
        lane.ready.extend(lane.parked)
        lane.parked.clear()
