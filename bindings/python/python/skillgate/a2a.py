"""The schema-interface draft for agents built on the official a2a-sdk, both lines: 1.x (protobuf
types, A2A 1.0) and 0.3.x (pydantic types, A2A 0.3, the line CrewAI, Strands and ADK ship).

Three pieces, each a thin rendering of a :class:`skillgate.Gate` decision into the SDK's types:

- :func:`govern_card` adds the extension advertisement (every skill's version and interface
  digest) and the ``describe_skill`` skill to an existing ``AgentCard``;
- :class:`GovernedExecutor` wraps an existing ``AgentExecutor``: describe_skill is answered,
  a bad request is refused before the wrapped executor runs (``interface_mismatch``,
  ``resource_limit_exceeded``, ``input_invalid``, ...), the executor receives the validated
  arguments as one Data Part, and its result is checked before completion is reported
  (``output_invalid`` instead of bad output);
- :class:`ExtensionEcho` is ASGI middleware that echoes the extension's activation in the
  response headers (``A2A-Extensions`` for 1.0, ``X-A2A-Extensions`` for 0.3).

Where the wrapped executor's result is read from, following ``skillgate gateway``'s defaults:
a supporting record of kind ``K`` is part 0 of each artifact named ``K``; the output is part 0
of the first other artifact (or of the reply message's parts), a Data Part's value or a Text
Part's JSON text. What is sent is the profile's shape: the output artifact is renamed to the
skill id. Artifacts are held back until the result is checked, so a client never sees output
that failed its schema.

Example::

    gate = skillgate.Gate([document])
    card = govern_card(card, gate)
    handler = DefaultRequestHandler(agent_executor=GovernedExecutor(MyExecutor(), gate), ...)
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, Dict, List, Optional, Tuple

from . import EXTENSION_URI, Admitted, Described, Gate, Refused

try:  # the 1.x line: protobuf types
    from a2a.types import a2a_pb2 as _pb  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the installed line
    _pb = None

if _pb is not None:
    from google.protobuf import json_format as _json_format
    from a2a.server.events.event_queue import EventQueue as _EventQueueBase
else:  # the 0.3 line: pydantic types; its EventQueue is concrete, duck typing is enough
    _EventQueueBase = object  # type: ignore[assignment,misc]

__all__ = ["GovernedExecutor", "ExtensionEcho", "govern_card", "SDK_LINE"]

#: Which a2a-sdk line is installed: ``"1.x"`` or ``"0.3"``.
SDK_LINE = "1.x" if _pb is not None else "0.3"


# --- The two lines' types, behind one small set of functions ------------------------------


class _V1:
    """a2a-sdk 1.x (protobuf)."""

    TERMINAL = ("completed", "failed", "canceled", "rejected")

    # Per-event lookups, built once: the wire names of the states and the kinds of events.
    _STATE_NAMES: Dict[int, str] = (
        {v: k[len("TASK_STATE_"):].lower().replace("_", "-") for k, v in _pb.TaskState.items()} if _pb else {}
    )
    _KINDS: Dict[Any, str] = (
        {
            _pb.Task: "task",
            _pb.Message: "message",
            _pb.TaskStatusUpdateEvent: "status",
            _pb.TaskArtifactUpdateEvent: "artifact",
        }
        if _pb
        else {}
    )

    @classmethod
    def state_name(cls, state: Any) -> str:
        name = cls._STATE_NAMES.get(state)
        if name is None:  # a state this SDK build does not name: what protobuf says
            name = _pb.TaskState.Name(state).removeprefix("TASK_STATE_").lower().replace("_", "-")
        return name

    @staticmethod
    def state(name: str) -> Any:
        return _pb.TaskState.Value("TASK_STATE_" + name.upper().replace("-", "_"))

    @staticmethod
    def part_value(part: Any) -> Tuple[bool, Any]:
        kind = part.WhichOneof("content")
        if kind == "data":
            return True, _json_format.MessageToDict(part.data)
        if kind == "text":
            return _json_text(part.text)
        return False, None

    @staticmethod
    def data_part(value: Any) -> Any:
        part = _pb.Part(media_type="application/json")
        _json_format.ParseDict(value, part.data)
        return part

    @staticmethod
    def decide(gate: Gate, message: Any) -> Tuple[Any, Any]:
        # The Data Part's protobuf Value goes to Rust as bytes: no pure-Python json_format.
        parts = message.parts if message is not None else []
        if len(parts) != 1 or parts[0].WhichOneof("content") != "data":
            return None, None
        return gate.decide_protobuf(parts[0].data.SerializeToString()), None

    @staticmethod
    def check_output(gate: Gate, skill: str, out_part: Any, records: List[Tuple[str, str, List[Any]]]) -> Tuple[bool, Any]:
        is_data = lambda p: p is not None and p.WhichOneof("content") == "data"  # noqa: E731
        if is_data(out_part) and all(parts and is_data(parts[0]) for _, _, parts in records):
            rec = [(name, aid, parts[0].data.SerializeToString()) for aid, name, parts in records]
            return True, gate.check_output_protobuf(skill, out_part.data.SerializeToString(), rec)
        return _check_output_values(gate, skill, out_part, records)

    @staticmethod
    def with_arguments(message: Any, request: Dict[str, Any]) -> Any:
        # The arguments Value is copied inside protobuf: no round trip through Python dicts.
        copy = _pb.Message()
        copy.CopyFrom(message)
        data = copy.parts[0].data.struct_value.fields.get("arguments")
        part = _pb.Part(media_type="application/json")
        if data is not None:
            part.data.CopyFrom(data)
        else:
            part.data.null_value = 0
        del copy.parts[:]
        copy.parts.append(part)
        return copy

    @staticmethod
    def waits_for_end(context: Any) -> bool:
        # Only a JSON-RPC SendMessage names itself (the SDK's dispatcher records the method);
        # over the other bindings the call might stream, and the task is announced at once.
        call = getattr(context, "call_context", None)
        if call is None or call.state.get("method") != "SendMessage":
            return False
        config = context.configuration
        return config is None or not (
            config.return_immediately or config.HasField("task_push_notification_config")
        )

    @staticmethod
    def new_task(context: Any) -> Any:
        return _pb.Task(
            id=context.task_id,
            context_id=context.context_id,
            status=_pb.TaskStatus(state=_pb.TaskState.TASK_STATE_SUBMITTED),
            history=[context.message],
        )

    @classmethod
    def status(cls, context: Any, state: str, data: Any = None, message: Any = None) -> Any:
        status = _pb.TaskStatus(state=cls.state(state))
        if data is not None:
            message = _pb.Message(
                message_id=str(uuid.uuid4()),
                context_id=context.context_id,
                task_id=context.task_id,
                role=_pb.Role.ROLE_AGENT,
                parts=[cls.data_part(data)],
            )
        if message is not None:
            status.message.CopyFrom(message)
        status.timestamp.GetCurrentTime()
        return _pb.TaskStatusUpdateEvent(
            task_id=context.task_id, context_id=context.context_id, status=status
        )

    @classmethod
    def artifact(cls, context: Any, artifact_id: str, name: str, parts: List[Any]) -> Any:
        return _pb.TaskArtifactUpdateEvent(
            task_id=context.task_id,
            context_id=context.context_id,
            artifact=_pb.Artifact(artifact_id=artifact_id, name=name, parts=parts),
            last_chunk=True,
        )

    @classmethod
    def classify(cls, event: Any) -> str:
        return cls._KINDS.get(type(event), "other")

    @staticmethod
    def card_with(card: Any, extension: Dict[str, Any], describe: Dict[str, Any]) -> Any:
        governed = _pb.AgentCard()
        governed.CopyFrom(card)
        kept = [e for e in governed.capabilities.extensions if e.uri != EXTENSION_URI]
        del governed.capabilities.extensions[:]
        governed.capabilities.extensions.extend(kept)
        governed.capabilities.extensions.append(_json_format.ParseDict(extension, _pb.AgentExtension()))
        skills = [s for s in governed.skills if s.id != describe["id"]]
        del governed.skills[:]
        governed.skills.append(_json_format.ParseDict(describe, _pb.AgentSkill(), ignore_unknown_fields=True))
        governed.skills.extend(skills)
        return governed

    @staticmethod
    def skill_ids(card: Any) -> List[str]:
        return [s.id for s in card.skills]


class _V03:
    """a2a-sdk 0.3.x (pydantic)."""

    TERMINAL = ("completed", "failed", "canceled", "rejected")

    @staticmethod
    def state_name(state: Any) -> str:
        return state.value

    @staticmethod
    def state(name: str) -> Any:
        from a2a.types import TaskState

        return TaskState(name)

    @staticmethod
    def part_value(part: Any) -> Tuple[bool, Any]:
        root = getattr(part, "root", part)
        kind = getattr(root, "kind", None)
        if kind == "data":
            return True, root.data
        if kind == "text":
            return _json_text(root.text)
        return False, None

    @staticmethod
    def data_part(value: Any) -> Any:
        from a2a.types import DataPart, Part

        # A 0.3 Data Part holds an object; anything else travels wrapped, as the SDKs do.
        if isinstance(value, dict):
            return Part(root=DataPart(data=value))
        return Part(root=DataPart(data={"value": value}, metadata={"data_part_compat": True}))

    @staticmethod
    def decide(gate: Gate, message: Any) -> Tuple[Any, Any]:
        request = _request_data(message)
        return (gate.decide(request) if isinstance(request, dict) else None), request

    @staticmethod
    def check_output(gate: Gate, skill: str, out_part: Any, records: List[Tuple[str, str, List[Any]]]) -> Tuple[bool, Any]:
        return _check_output_values(gate, skill, out_part, records)

    @classmethod
    def with_arguments(cls, message: Any, request: Dict[str, Any]) -> Any:
        return message.model_copy(update={"parts": [cls.data_part(request.get("arguments"))]})

    @staticmethod
    def waits_for_end(context: Any) -> bool:
        # The 0.3 line always gets the announcement first (its overhead was not measured).
        return False

    @staticmethod
    def new_task(context: Any) -> Any:
        from a2a.types import Task, TaskState, TaskStatus

        return Task(
            id=context.task_id,
            context_id=context.context_id,
            status=TaskStatus(state=TaskState.submitted),
            history=[context.message],
        )

    @classmethod
    def status(cls, context: Any, state: str, data: Any = None, message: Any = None) -> Any:
        from datetime import datetime, timezone

        from a2a.types import Message, Role, TaskStatus, TaskStatusUpdateEvent

        if data is not None:
            message = Message(
                message_id=str(uuid.uuid4()),
                context_id=context.context_id,
                task_id=context.task_id,
                role=Role.agent,
                parts=[cls.data_part(data)],
            )
        return TaskStatusUpdateEvent(
            task_id=context.task_id,
            context_id=context.context_id,
            status=TaskStatus(
                state=cls.state(state),
                message=message,
                timestamp=datetime.now(timezone.utc).isoformat(),
            ),
            final=state in cls.TERMINAL,
        )

    @classmethod
    def artifact(cls, context: Any, artifact_id: str, name: str, parts: List[Any]) -> Any:
        from a2a.types import Artifact, TaskArtifactUpdateEvent

        return TaskArtifactUpdateEvent(
            task_id=context.task_id,
            context_id=context.context_id,
            artifact=Artifact(artifact_id=artifact_id, name=name, parts=parts),
            last_chunk=True,
        )

    _KINDS = {"task": "task", "message": "message", "status-update": "status", "artifact-update": "artifact"}

    @classmethod
    def classify(cls, event: Any) -> str:
        return cls._KINDS.get(getattr(event, "kind", None), "other")

    @staticmethod
    def card_with(card: Any, extension: Dict[str, Any], describe: Dict[str, Any]) -> Any:
        from a2a.types import AgentExtension, AgentSkill

        caps = card.capabilities
        extensions = [e for e in (caps.extensions or []) if e.uri != EXTENSION_URI]
        extensions.append(AgentExtension.model_validate(extension))
        skill = AgentSkill.model_validate(
            {k: v for k, v in describe.items() if k in ("id", "name", "description", "tags", "examples", "inputModes", "outputModes")}
        )
        skills = [skill] + [s for s in card.skills if s.id != describe["id"]]
        return card.model_copy(
            update={"capabilities": caps.model_copy(update={"extensions": extensions}), "skills": skills}
        )

    @staticmethod
    def skill_ids(card: Any) -> List[str]:
        return [s.id for s in card.skills]


_SDK = _V1 if _pb is not None else _V03


def _json_text(text: str) -> Tuple[bool, Any]:
    """A Text Part's value: JSON text, or nothing usable."""
    try:
        return True, json.loads(text)
    except ValueError:
        return False, None


def _check_output_values(gate: Gate, skill: str, out_part: Any, records: List[Tuple[str, str, List[Any]]]) -> Tuple[bool, Any]:
    """`Gate.check_output` on the output part's value (a Data Part, or JSON text) and each
    record's: (False, None) when the output part holds no usable value."""
    found = _SDK.part_value(out_part) if out_part is not None else (False, None)
    if not found[0]:
        return False, None
    checked = [
        {"kind": name, "artifact_id": aid, "data": _SDK.part_value(parts[0])[1] if parts else None}
        for aid, name, parts in records
    ]
    return True, gate.check_output(skill, found[1], checked)


def _request_data(message: Any) -> Any:
    """The content of a message's one Data Part; None when it has another shape."""
    parts = list(message.parts) if message is not None else []
    if len(parts) != 1:
        return None
    if _SDK.classify(message) != "message":
        return None
    root = getattr(parts[0], "root", None)
    if _pb is not None:
        if parts[0].WhichOneof("content") != "data":
            return None
        return _json_format.MessageToDict(parts[0].data)
    if getattr(root, "kind", None) != "data":
        return None
    return root.data


# --- The card -------------------------------------------------------------------------------


def govern_card(card: Any, gate: Gate) -> Any:
    """A copy of ``card`` (an a2a-sdk ``AgentCard`` of the installed line) that advertises the
    schema-interface extension with every skill of ``gate`` and lists ``describe_skill`` first.
    Raises ``ValueError`` when a skill of the gate is missing from the card's skills: a client
    selects a skill from the card before anything else (draft step 2)."""
    missing = [s for s in gate.skill_ids if s not in _SDK.skill_ids(card)]
    if missing:
        raise ValueError(
            f"the Agent Card does not list the governed skill(s) {', '.join(missing)}: add an "
            "AgentSkill with that id for each document given to the Gate"
        )
    return _SDK.card_with(card, gate.extension, gate.describe_skill_card_skill)


# --- The executor --------------------------------------------------------------------------


class _HeldQueue(_EventQueueBase):  # type: ignore[misc,valid-type]
    """What the wrapped executor writes to: status updates before the end pass through;
    artifacts, the end and any reply message are held until the result is checked."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.artifacts: List[Tuple[str, str, List[Any]]] = []
        self.end: Optional[Tuple[str, Any]] = None
        self.end_event: Optional[Any] = None
        self.reply: Optional[Any] = None
        # The last state passed through: an executor that stops at input-required or
        # auth-required leaves the task waiting, which is not a failure.
        self.last_state: Optional[str] = None

    async def enqueue_event(self, event: Any) -> None:
        kind = _SDK.classify(event)
        if kind == "artifact":
            a = event.artifact
            for i, (aid, name, parts) in enumerate(self.artifacts):
                if aid == a.artifact_id and event.append:
                    self.artifacts[i] = (aid, name, parts + list(a.parts))
                    return
            self.artifacts.append((a.artifact_id, a.name or "", list(a.parts)))
        elif kind == "status":
            state = _SDK.state_name(event.status.state)
            if state in _SDK.TERMINAL:
                self.end = (state, event.status.message if _has_message(event.status) else None)
                self.end_event = event
            else:
                self.last_state = state
                await self.sink.enqueue_event(event)
        elif kind == "task":
            # A Task from the executor: its artifacts and state count; the task itself is
            # announced by the gate (at once, or before its first status update), so the event
            # is not sent again.
            for a in event.artifacts:
                self.artifacts.append((a.artifact_id, a.name or "", list(a.parts)))
            state = _SDK.state_name(event.status.state)
            if state in _SDK.TERMINAL:
                self.end = (state, event.status.message if _has_message(event.status) else None)
        elif kind == "message":
            self.reply = event
            self.end = ("completed", None)

    # Framework-managed queues have more methods; the executor only ever enqueues.
    def __getattr__(self, name: str) -> Any:
        return getattr(self.sink, name)


async def _within(work: Any, limit: Optional[float]) -> None:
    """Awaits ``work``, raising ``asyncio.TimeoutError`` after ``limit`` seconds (None: no
    limit). From Python 3.11, ``asyncio.timeout`` runs it in the current task; ``wait_for``
    (3.9, 3.10) wraps it in a task of its own, which costs a task and its callbacks per call."""
    if limit is None:
        await work
    elif _timeout is not None:
        async with _timeout(limit):
            await work
    else:
        await asyncio.wait_for(work, limit)


_timeout = getattr(asyncio, "timeout", None)


class _Announcing:
    """The event queue of a call whose task is not announced yet: the task is announced just
    before the first status update (a 1.x handler refuses one before its Task); an artifact
    event needs no announcement (the SDK creates the task for it, with the request in its
    history, as for any executor that starts with an artifact)."""

    def __init__(self, queue: Any, context: Any) -> None:
        self._queue = queue
        self._context = context
        self._pending = True

    async def enqueue_event(self, event: Any) -> None:
        if self._pending:
            self._pending = False
            if _SDK.classify(event) == "status":
                await self._queue.enqueue_event(_SDK.new_task(self._context))
        await self._queue.enqueue_event(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._queue, name)


def _has_message(status: Any) -> bool:
    if _pb is not None:
        return status.HasField("message")
    return status.message is not None


class _ArgumentsContext:
    """The request context the wrapped executor sees: everything as the SDK made it, except
    that the message carries the validated arguments as its one Data Part."""

    def __init__(self, context: Any, message: Any) -> None:
        self._context = context
        self.message = message

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class GovernedExecutor:
    """An a2a-sdk ``AgentExecutor`` that runs ``inner`` behind ``gate``.

    ``arguments``: what the wrapped executor's message carries: ``"data"`` (default), one
    Data Part holding the validated arguments; ``"request"``, the governed request as sent
    (``skill``, ``skill_version``, ``interface_digest``, ``arguments``). Messages that are not
    governed requests (not one Data Part with a ``skill``) go to ``inner`` unchanged.

    ``calls`` counts the requests that reached ``inner``; ``refused`` those the gate refused.
    """

    def __init__(self, inner: Any, gate: Gate, arguments: str = "data") -> None:
        if arguments not in ("data", "request"):
            raise ValueError('arguments must be "data" or "request"')
        self.inner = inner
        self.gate = gate
        self.arguments = arguments
        self.calls = 0
        self.refused = 0
        self._limits: Dict[str, Optional[float]] = {}
        self._kinds: Dict[str, frozenset] = {}
        self._described: Dict[str, Any] = {}
        # Read once: a gate's documents never change, and `gate.document` copies one.
        for skill in gate.skill_ids:
            doc = gate.document(skill)
            ms = doc.to_dict().get("constraints", {}).get("max_duration_ms")
            self._limits[skill] = ms / 1000.0 if ms else None
            self._kinds[skill] = frozenset(doc.record_kinds)

    async def execute(self, context: Any, event_queue: Any) -> None:
        activate = getattr(context, "add_activated_extension", None)
        if activate is not None and EXTENSION_URI in (context.requested_extensions or ()):
            activate(EXTENSION_URI)
        decision, request = _SDK.decide(self.gate, context.message)
        if decision is None:
            self.calls += 1
            return await self.inner.execute(context, event_queue)
        # The task is announced first: a 1.x handler refuses a status update before its Task,
        # and a streaming caller learns the task's id (to cancel it) before the skill ends.
        # The one event the gate adds; no WORKING update of its own (each event costs the SDK
        # a task-store round). A caller that only waits for the final task never sees the
        # announcement: then it is made only if a status update needs it (an artifact event
        # creates the task in the SDK by itself, as it does for the unwrapped executor).
        if context.current_task is None:
            if _SDK.waits_for_end(context):
                event_queue = _Announcing(event_queue, context)
            else:
                await event_queue.enqueue_event(_SDK.new_task(context))
        if isinstance(decision, Described):
            # The document never changes: its Data Part is built once per skill, not per request.
            part = self._described.get(decision.artifact_id)
            if part is None:
                part = self._described.setdefault(decision.artifact_id, _SDK.data_part(decision.data))
            parts = [part]
            await event_queue.enqueue_event(_SDK.artifact(context, decision.artifact_id, decision.name, parts))
            return await event_queue.enqueue_event(_SDK.status(context, "completed"))
        if isinstance(decision, Refused):
            self.refused += 1
            return await event_queue.enqueue_event(_SDK.status(context, decision.state, data=decision.error))
        assert isinstance(decision, Admitted)
        await self._run(context, event_queue, decision, request)

    async def _run(self, context: Any, event_queue: Any, admitted: Admitted, request: Dict[str, Any]) -> None:
        skill = admitted.skill_id
        message = _SDK.with_arguments(context.message, request) if self.arguments == "data" else context.message
        inner_context = _ArgumentsContext(context, message)
        held = _HeldQueue(event_queue)
        self.calls += 1
        try:
            await _within(self.inner.execute(inner_context, held), self._limits.get(skill))
        except asyncio.TimeoutError:
            limit = self._limits.get(skill)
            error = {
                "code": "resource_limit_exceeded",
                "message": f"skill {skill} did not finish within {int((limit or 0) * 1000)} ms (max_duration_ms)",
            }
            return await event_queue.enqueue_event(_SDK.status(context, "failed", data=error))
        except Exception as e:  # the executor's own failure, reported as the draft's code
            error = {"code": "execution_failed", "message": f"skill {skill} failed: {type(e).__name__}: {e}"}
            return await event_queue.enqueue_event(_SDK.status(context, "failed", data=error))
        await self._finish(context, event_queue, skill, held)

    async def _finish(self, context: Any, event_queue: Any, skill: str, held: _HeldQueue) -> None:
        if held.end is None and held.last_state in ("input-required", "auth-required"):
            return  # the task waits for its caller; a later turn ends it
        state, message = held.end or ("failed", None)
        if state != "completed":
            if message is None or _request_data(message) is None:
                error = {"code": "execution_failed", "message": f"skill {skill} ended {state} without an error object"}
                return await event_queue.enqueue_event(_SDK.status(context, state, data=error))
            return await event_queue.enqueue_event(held.end_event or _SDK.status(context, state, message=message))
        kinds = self._kinds[skill]
        records: List[Tuple[str, str, List[Any]]] = []
        output: Optional[Tuple[str, List[Any]]] = None
        for aid, name, parts in held.artifacts:
            if name in kinds:
                records.append((aid, name, parts))
            elif output is None:
                output = (aid or "result", parts)
            # Any other artifact is not part of the profile's answer: it is not sent.
        if output is None and held.reply is not None:
            output = ("result", list(held.reply.parts))
        out_part = output[1][0] if output and output[1] else None
        usable, refused = _SDK.check_output(self.gate, skill, out_part, records)
        if not usable:
            error = {"code": "output_invalid", "message": f"skill {skill} completed without an output (a Data Part or JSON text)"}
            return await event_queue.enqueue_event(_SDK.status(context, "failed", data=error))
        if refused is not None:
            return await event_queue.enqueue_event(_SDK.status(context, refused.state, data=refused.error))
        # Sent as the executor made them (its part objects), the output under the skill's name.
        for aid, name, parts in records:
            await event_queue.enqueue_event(_SDK.artifact(context, aid, name, parts))
        await event_queue.enqueue_event(_SDK.artifact(context, output[0], skill, output[1]))
        await event_queue.enqueue_event(held.end_event or _SDK.status(context, "completed", message=message))

    async def cancel(self, context: Any, event_queue: Any) -> None:
        """Forwards cancellation to the wrapped executor."""
        return await self.inner.cancel(context, event_queue)


# --- ASGI ------------------------------------------------------------------------------------


_ACTIVATION_HEADERS = (b"a2a-extensions", b"x-a2a-extensions")


class ExtensionEcho:
    """ASGI middleware: when a request activates the schema-interface extension (in
    ``A2A-Extensions`` or 0.3's ``X-A2A-Extensions``), the response says so in the same
    header, as the A2A specifications ask of an agent that supports it."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        names = []
        for k, v in scope.get("headers", ()):
            name = k.lower()  # bytes: ASGI servers lower-case names already; no decoding per header
            if name in _ACTIVATION_HEADERS:
                if EXTENSION_URI in [u.strip() for u in v.decode("latin-1").split(",")]:
                    names.append(name)
        if not names:  # nothing to echo: the response goes out untouched
            return await self.app(scope, receive, send)

        async def echo(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(n, EXTENSION_URI.encode()) for n in names if n not in present]
                message["headers"] = list(message.get("headers", [])) + extra
            await send(message)

        return await self.app(scope, receive, echo)
