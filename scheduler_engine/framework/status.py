"""Plugin results: upstream's ``Status`` with its seven codes.

By convention a plugin returns ``None`` for success (as upstream returns a nil
status); every other outcome is a :class:`Status`.  Only bugs raise; the
runtime turns an exception into an ``ERROR`` status naming the plugin.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Code", "Status", "as_status", "is_success"]


class Code(IntEnum):
    # The plugin ran and everything is fine.
    SUCCESS = 0
    # An internal error: the pod is retried, nothing is concluded about nodes.
    ERROR = 1
    # The node does not fit now, but preemption (or a change) may help.
    UNSCHEDULABLE = 2
    # The node cannot fit whatever is evicted: preemption skips it.
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    # Permit: hold the pod until allowed, rejected or timed out.
    WAIT = 4
    # PreFilter/PreScore: the plugin has nothing to do for this pod; its
    # Filter/Score are not called.  Bind: the binder leaves the pod to the next.
    SKIP = 5
    # PreEnqueue or PreFilter: the pod waits for something outside the scheduler.
    PENDING = 6


_CODE_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


class Status:
    __slots__ = ("code", "detail", "error", "plugin", "reasons")

    def __init__(
        self,
        code: Code,
        *reasons: str,
        plugin: str = "",
        error: BaseException | None = None,
    ) -> None:
        self.code = code
        self.reasons: tuple[str, ...] = reasons
        self.plugin = plugin
        self.error = error
        # beyond upstream: what an explanation adds to the reasons (never in messages)
        self.detail = ""

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        return cls(Code.UNSCHEDULABLE, *reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)

    @classmethod
    def from_error(cls, error: BaseException, plugin: str = "") -> Status:
        return cls(Code.ERROR, str(error), plugin=plugin, error=error)

    @property
    def code_name(self) -> str:
        return _CODE_NAMES[self.code]

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def message(self) -> str:
        """Reasons joined as upstream's ``Status.Message()``."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        if not self.plugin:
            self.plugin = plugin
        return self

    def __repr__(self) -> str:
        who = f" {self.plugin}" if self.plugin else ""
        return f"<Status{who} {self.code_name}: {self.message()}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return self.code == other.code and self.reasons == other.reasons

    __hash__ = None  # type: ignore[assignment]


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.SUCCESS


def as_status(status: Status | None) -> Status:
    return status if status is not None else Status(Code.SUCCESS)
