"""Studies, their models and questions, and the request queue: what is asked, claimed, answered, imported."""
