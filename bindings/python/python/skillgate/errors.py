"""The exceptions skillgate raises.

Every failure is a :class:`SkillgateError` carrying the draft's machine-readable ``code``
(``input_invalid``, ``interface_mismatch``, ...), the ``details`` of a validation failure
(each a dict with ``instance_path`` and, where known, ``schema_path``, ``keyword``,
``expected`` and ``actual``; never the offending value), and, for client failures, ``where``
(``"local"``: this process refused before or after the exchange; ``"remote"``: the agent's task
ended with that code) and ``step`` (1 to 11, the draft's client sequence). Catch the subclass
for one code, or :class:`SkillgateError` for all of them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

__all__ = [
    "SkillgateError",
    "SkillNotAdvertised",
    "InterfaceUnavailable",
    "InterfaceInvalid",
    "InterfaceMismatch",
    "InputInvalid",
    "ConstraintRejected",
    "AuthorizationFailed",
    "ResourceLimitExceeded",
    "OutputInvalid",
    "ExecutionFailed",
    "JsonInvalid",
    "TransportError",
    "ProtocolError",
    "UsageError",
    "error_class",
]


class SkillgateError(Exception):
    """A refusal or failure with the draft's error code and where it happened."""

    #: The code this class stands for; the base class takes any.
    CODE: Optional[str] = None

    # Defaults for what a failure does not carry. The extension module builds its exceptions
    # without running ``__init__`` (it sets ``message``, ``code`` and ``details``, plus what a
    # client failure knows), so these class attributes are what such an instance reads for the
    # rest.
    where: Optional[str] = None
    step: Optional[int] = None
    step_name: Optional[str] = None
    task_id: Optional[str] = None
    state: Optional[str] = None

    def __init__(
        self,
        message: str,
        code: Optional[str] = None,
        details: Optional[List[Dict[str, Any]]] = None,
        where: Optional[str] = None,
        step: Optional[int] = None,
        step_name: Optional[str] = None,
        task_id: Optional[str] = None,
        state: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.CODE or "skillgate_error"
        self.details = list(details or [])
        self.where = where
        self.step = step
        self.step_name = step_name
        self.task_id = task_id
        self.state = state

    def to_error_object(self) -> Dict[str, Any]:
        """The draft's error object (``code``, ``message``, ``details`` when allowed)."""
        obj: Dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            obj["details"] = self.details
        return obj

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={v!r}" for k, v in (("where", self.where), ("step", self.step)) if v is not None
        )
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}{extra})"


class SkillNotAdvertised(SkillgateError):
    """The card does not advertise the skill (client-local, step 2)."""

    CODE = "skill_not_advertised"


class InterfaceUnavailable(SkillgateError):
    """No Skill Interface Document for the skill (describe_skill could not answer)."""

    CODE = "interface_unavailable"


class InterfaceInvalid(SkillgateError):
    """A Skill Interface Document is invalid (schema, digests, dialect, external $ref...)."""

    CODE = "interface_invalid"


class InterfaceMismatch(SkillgateError):
    """The request names another skill_version or interface_digest than the active one."""

    CODE = "interface_mismatch"


class InputInvalid(SkillgateError):
    """The arguments do not validate against the input schema; ``details`` says where."""

    CODE = "input_invalid"


class ConstraintRejected(SkillgateError):
    """The skill refused a request its schema allows (a domain constraint)."""

    CODE = "constraint_rejected"


class AuthorizationFailed(SkillgateError):
    """The caller may not run the skill (validation is not authorization)."""

    CODE = "authorization_failed"


class ResourceLimitExceeded(SkillgateError):
    """A declared constraint (max_input_bytes, max_duration_ms) was exceeded."""

    CODE = "resource_limit_exceeded"


class OutputInvalid(SkillgateError):
    """The output or a supporting record does not validate against its schema."""

    CODE = "output_invalid"


class ExecutionFailed(SkillgateError):
    """The skill failed while running."""

    CODE = "execution_failed"


class JsonInvalid(SkillgateError, ValueError):
    """The input is not I-JSON: malformed text, a duplicate member, a lone surrogate, a
    non-finite float, an integer outside 64 bits, a non-string key, or nesting too deep.
    ``code`` names which (``duplicate_member``, ``too_deep``, ...)."""

    CODE = "json_invalid"


class TransportError(SkillgateError):
    """The agent could not be reached or answered outside the protocol (HTTP status, TLS,
    timeout, size limit). ``code`` is ``transport_error``."""

    CODE = "transport_error"


class ProtocolError(SkillgateError):
    """The agent answered, but not as A2A or the wire profile says."""

    CODE = "protocol_error"


class UsageError(SkillgateError, ValueError):
    """The call itself is wrong: a bad URL, option or plan."""

    CODE = "usage_error"


_BY_CODE = {
    cls.CODE: cls
    for cls in (
        SkillNotAdvertised,
        InterfaceUnavailable,
        InterfaceInvalid,
        InterfaceMismatch,
        InputInvalid,
        ConstraintRejected,
        AuthorizationFailed,
        ResourceLimitExceeded,
        OutputInvalid,
        ExecutionFailed,
        TransportError,
        ProtocolError,
        UsageError,
    )
}


#: The codes of :class:`JsonInvalid`: why a JSON input was refused.
JSON_KINDS = frozenset(
    {
        "json_invalid",
        "syntax",
        "unexpected_eof",
        "trailing_characters",
        "duplicate_member",
        "lone_surrogate",
        "number_out_of_range",
        "too_deep",
        "invalid_utf8",
        "non_string_key",
    }
)


def error_class(code: str) -> type:
    """The exception class for ``code`` (:class:`JsonInvalid` for the I-JSON kinds,
    :class:`SkillgateError` for a code this version does not know)."""
    if code in JSON_KINDS:
        return JsonInvalid
    return _BY_CODE.get(code, SkillgateError)
