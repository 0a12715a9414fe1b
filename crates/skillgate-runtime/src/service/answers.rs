//! The answers to A2A methods this agent does not serve, given once for both bindings so the
//! JSON-RPC and HTTP+JSON replies cannot drift apart.

use super::{A2aService, ServiceError};
use skillgate_a2a::A2aError;

impl A2aService {
    /// `GetExtendedAgentCard` for `caller` at `base_url`: the extended card when the agent
    /// has one (`capabilities.extendedAgentCard: true`), else refused.
    pub fn extended_agent_card(
        &self,
        caller: Option<&crate::auth::Caller>,
        base_url: &str,
        auth: bool,
    ) -> Result<skillgate_a2a::AgentCard, ServiceError> {
        let agent = self.agent();
        match caller {
            Some(c) if agent.has_extended_card(auth) => {
                let mut card = agent.extended_card(base_url, auth, c);
                card.capabilities.push_notifications = Some(self.push_enabled());
                Ok(card)
            }
            _ => Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                "this agent has no extended agent card (capabilities.extendedAgentCard is false)",
            )),
        }
    }
}
