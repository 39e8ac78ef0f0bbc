"""Agent backends: one module per CLI, all shaped by ``rgr.backends.base.Backend``."""

from rgr.backends.base import AgentRequest, AgentResult, AgentRunError, Backend
from rgr.backends.claude import ClaudeBackend

__all__ = ["AgentRequest", "AgentResult", "AgentRunError", "Backend", "ClaudeBackend"]
