"""Interactive surfaces built from ipywidgets (imported when a widget is made).

:class:`~ragnb.widgets.whatif.WhatIf`: what-if stratification of a breakdown.
"""
