"""The two clients over one native client: :class:`Client`, coroutines (``client.call(...)``
can be created anywhere and awaited later, like any coroutine), and :class:`BlockingClient`,
plain calls that wait with the GIL released."""

from __future__ import annotations

from typing import Any, Dict, Optional

from ._skillgate import CallResult, Description, NativeClient

__all__ = ["BlockingClient", "Client"]


class Client:
    """Runs the draft's eleven client steps (``skillgate describe``, ``call`` and ``chain``)
    from asyncio, on skillgate's Rust client and its own threads: the event loop is never
    blocked. Keywords as :class:`skillgate.BlockingClient` (token, timeout, headers,
    trust_jwks, binding, cache_dir, allow_http, a2a_version, allow_credentials_to).

    Cancelling the awaiting task abandons the call; when the call streams (the default when
    the skill and the card offer it) the remote task is cancelled too, since the stream named
    it in its first event.
    """

    def __init__(self, **options: Any) -> None:
        self._native = NativeClient(**options)

    async def describe(self, url: str, skill_id: str) -> Description:
        """Steps 1 to 6: the skill's interface, checked three ways against the card."""
        return await self._native.describe(url, skill_id)

    async def call(self, url: str, skill_id: str, arguments: Any, stream: Optional[bool] = None) -> CallResult:
        """All eleven steps; raises the :class:`skillgate.SkillgateError` subclass of the
        failure's code, with ``where`` and ``step``."""
        return await self._native.call(url, skill_id, arguments, stream)

    async def chain(self, plan: Dict[str, Any], stream: bool = False) -> Dict[str, Any]:
        """Runs a ``skillgate chain`` plan; every link is checked before anything is sent."""
        return await self._native.chain(plan, stream)


class BlockingClient:
    """The same calls as :class:`Client`, each waiting for its result (the GIL released
    meanwhile, so other Python threads run). Same keywords as :class:`Client`."""

    def __init__(self, **options: Any) -> None:
        self._native = NativeClient(**options)

    def describe(self, url: str, skill_id: str) -> Description:
        """Steps 1 to 6: the skill's interface, checked three ways against the card."""
        return self._native.describe_blocking(url, skill_id)

    def call(self, url: str, skill_id: str, arguments: Any, stream: Optional[bool] = None) -> CallResult:
        """All eleven steps; raises the :class:`skillgate.SkillgateError` subclass of the
        failure's code, with ``where`` and ``step``."""
        return self._native.call_blocking(url, skill_id, arguments, stream)

    def chain(self, plan: Dict[str, Any], stream: bool = False) -> Dict[str, Any]:
        """Runs a ``skillgate chain`` plan; every link is checked before anything is sent."""
        return self._native.chain_blocking(plan, stream)
