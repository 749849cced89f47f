"""The template scene's view: one share-bars widget, its bars growing in on each build.

The view creates its widgets once, hands them the story's states (``present``)
and moves what moves on the scene clock (``on_tick``). It keeps nothing the
story could derive: here one transition, the bars' growth.
"""
from __future__ import annotations

from desktop.kit.scene import Scene
from widgets.share_bars import ShareBars
from widgets.transition import Transition

from .story import TemplateStory


class TemplateScene(Scene):
    Story = TemplateStory
    shows_times = True                       # the stage shows times: marked hypothetical when they do not fit

    def __init__(self, kit, parent=None):
        super().__init__(kit, parent)
        self.bars = self.themed(ShareBars(kit.theme, self))
        self._grow = Transition(1.0)
        self.start()

    def build_started(self, story, animate: bool) -> None:
        now = self.clock.seconds()
        self._grow.retarget(0.0, now, animate=False)          # each build's bars grow in from nothing
        self._grow.retarget(1.0, now, animate=animate)

    def present(self, story, animate: bool) -> None:
        self.bars.set_state(story.bars(self._grow.value(self.clock.seconds())))

    def on_tick(self, seconds: float) -> None:
        self.bars.set_state(self.story().bars(self._grow.value(seconds)))

    def moving(self, seconds: float) -> bool:
        return self._grow.running(seconds)

    def lay_out(self) -> None:
        self.place({self.bars: (0, 0, self.width(), self.height())})


SCENE = TemplateScene
