"""The view of "the model in GPU memory": one set of memory bars, or three side by side for the comparison.

It hands the story's states to the bars and eases them on the scene clock.
Stepping builds never changes the shared scenario; the last build ("explore")
shows the shared one, changed through the shared controls beside the stage,
and shows a refused change (a GPU count the model's heads do not divide)
inline under the bars until the next accepted one.
"""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QWidget

from desktop.kit.scene import Scene
from widgets.memory_bars import MemoryBars

from .story import BAR_FORMULAS, WAYS, ModelMemoryStory


class ModelMemoryScene(Scene):
    Story = ModelMemoryStory
    shows_times = False

    def __init__(self, kit, parent: QWidget | None = None):
        super().__init__(kit, parent)
        self._refusal = ""                  # the shared controls' latest refused change (explore only)
        self.bars = [self.themed(MemoryBars(kit.theme, self)) for _ in WAYS]
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        for bars in self.bars:
            layout.addWidget(bars, 1)
            self.clock.ticked.connect(bars.set_seconds)
        kit.store.error.connect(self._on_store_error)
        self.start()

    def control_values(self) -> str:
        return self._refusal

    def build_started(self, story, animate: bool) -> None:
        if story.build_name != "explore":
            self._refusal = ""

    def on_report(self, scenario, report) -> None:
        self._refusal = ""
        super().on_report(scenario, report)

    def present(self, story: ModelMemoryStory, animate: bool) -> None:
        states = story.stage_states()
        now = self.clock.seconds()
        for n, bars in enumerate(self.bars):
            if n < len(states):
                bars.show_state(states[n], now, animate and bars.isVisible())
            bars.setVisible(n < len(states))

    def figure_places(self) -> dict:
        """Each bar's weights and KV cache labels (``ModelMemoryStory.formulas``)."""
        names = WAYS if self.story().build_name == "compare" else ("",)
        return {(f"{key}.{name}" if name else key): (self.bars[n], (label,))
                for n, name in enumerate(names) for key, label in BAR_FORMULAS.items()}

    def moving(self, seconds: float) -> bool:
        return any(bars.animating() for bars in self.bars)

    def _on_store_error(self, message: str) -> None:
        if self.story().build_name == "explore":
            self._refusal = message
            self.refresh()


SCENE = ModelMemoryScene
