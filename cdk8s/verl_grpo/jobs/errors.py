"""What the job verbs refuse with: one line, what was asked and what would work."""


class JobsError(Exception):
    pass
