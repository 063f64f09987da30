"""The service's routes, one APIRouter a concern (see docs/service.md, 代码结构)."""
