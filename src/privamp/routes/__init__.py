"""Accounting routes: RDP (grid or analytical order search), privacy profiles, and more to come, behind one interface
(:class:`privamp.routes.base.Route`)."""
