"""The three wire protocols the gateway speaks, each translated to and from the neutral chat call."""

from .base import Wire
from .chat import ChatWire
from .messages import MessagesWire
from .responses import ResponsesWire

__all__ = ["ChatWire", "MessagesWire", "ResponsesWire", "Wire"]
