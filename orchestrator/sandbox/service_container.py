"""A helper container run for the length of a `with` block (the customer API, the host-service relay)."""

from __future__ import annotations


class ServiceContainer:
    """Started on enter, removed on exit even when start fails half-way; the session sweep is the backstop."""

    container = None

    def start(self) -> ServiceContainer:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def remove_container(self) -> None:
        """Force-remove the container if one was created."""
        if self.container is not None:
            try:
                self.container.remove(force=True)
            except Exception:  # noqa: BLE001 - the session sweep removes what is left
                pass

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc) -> None:
        self.stop()
