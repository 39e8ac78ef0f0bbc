"""A scripted fake of the Anthropic Messages API, for tests and ``rgr demo``."""

from rgr.fake_model.script import (
    STRUCTURED_OUTPUT_TOOL,
    CutStream,
    Hang,
    HttpError,
    SessionScript,
    Step,
    Text,
    ToolCall,
    bash,
    edit,
    read,
    structured,
    write,
)
from rgr.fake_model.server import FakeModelServer, RequestRecord, Usage

__all__ = [
    "STRUCTURED_OUTPUT_TOOL",
    "CutStream",
    "FakeModelServer",
    "Hang",
    "HttpError",
    "RequestRecord",
    "SessionScript",
    "Step",
    "Text",
    "ToolCall",
    "Usage",
    "bash",
    "edit",
    "read",
    "structured",
    "write",
]
