"""skillgate: schema-governed A2A skills (draft-huang-ainetops-agent-schema-interfaces-00) for
Python, on the same Rust core as the ``skillgate`` command.

Core: :func:`canonicalize` and :func:`digest` (RFC 8785 and ``sha256:``),
:class:`InterfaceDocument` (a checked Skill Interface Document that validates instances),
:func:`compose`, :func:`lint_card`.

Calling governed skills: :class:`Client` (asyncio) and :class:`BlockingClient` run the draft's
eleven client steps; failures raise :class:`SkillgateError` subclasses (``skillgate.errors``).

Serving them: :class:`Gate` gives an agent built on another A2A stack the extension
advertisement, the describe_skill answer, the admission decision and the output check;
``skillgate.a2a`` applies it to an a2a-sdk agent.
"""

from ._skillgate import (
    EXTENSION_URI,
    Admitted,
    CallResult,
    Described,
    Description,
    Gate,
    InterfaceDocument,
    Refused,
    __version__,
    canonicalize,
    compose,
    digest,
    lint_card,
)
from .client import BlockingClient, Client
from .errors import (
    AuthorizationFailed,
    ConstraintRejected,
    ExecutionFailed,
    InputInvalid,
    InterfaceInvalid,
    InterfaceMismatch,
    InterfaceUnavailable,
    JsonInvalid,
    OutputInvalid,
    ProtocolError,
    ResourceLimitExceeded,
    SkillgateError,
    SkillNotAdvertised,
    TransportError,
    UsageError,
)

__all__ = [
    "EXTENSION_URI",
    "Admitted",
    "AuthorizationFailed",
    "BlockingClient",
    "CallResult",
    "Client",
    "ConstraintRejected",
    "Described",
    "Description",
    "ExecutionFailed",
    "Gate",
    "InputInvalid",
    "InterfaceDocument",
    "InterfaceInvalid",
    "InterfaceMismatch",
    "InterfaceUnavailable",
    "JsonInvalid",
    "OutputInvalid",
    "ProtocolError",
    "Refused",
    "ResourceLimitExceeded",
    "SkillNotAdvertised",
    "SkillgateError",
    "TransportError",
    "UsageError",
    "__version__",
    "canonicalize",
    "compose",
    "digest",
    "lint_card",
]
