"""Errors that end a command with a one-line message and exit code 2."""

from __future__ import annotations


class BenchlabError(Exception):
    """A problem with the user's input or arguments, shown as one line.

    `where` is the file (and line, as "file:line") the problem is in, if any.
    """

    def __init__(self, message: str, where: str | None = None, exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.exit_code = exit_code

    def __str__(self) -> str:
        """The one line shown; control characters from data (a file name, a token) escaped,
        and a message grown long from data (a giant name or token) cut to a readable length."""
        from benchlab.escape import bounded_line, terminal

        message = bounded_line(self.message)
        return terminal(f"{self.where}: {message}" if self.where else message)


class InputError(BenchlabError):
    """Bad data: unreadable file, a non-numeric token, too few values."""


class UsageError(BenchlabError):
    """Bad command-line arguments."""


class ParameterError(InputError, UsageError):
    """A bad value of a named parameter of the library, said in the caller's own terms.

    `template` names the parameter as `{param}`: the Python API shows the parameter
    (`interactions must be between 1 and 4`), the command line its option
    (`--interactions must be ...`; `option` names one that differs). Both an input and a
    usage error: what is wrong may be the data (unequal lengths when paired) or the value.
    """

    def __init__(self, template: str, parameter: str, where: str | None = None, *,
                 option: str | None = None) -> None:
        self.template, self.parameter, self.option = template, parameter, option
        super().__init__(template.replace("{param}", parameter), where)

    def as_option(self) -> None:
        """Say the command-line option instead of the parameter (default --NAME), keeping
        what a caller added around the message (a suite's "benchmark 'x': ")."""
        flag = self.option or "--" + self.parameter.replace("_", "-")
        said = self.template.replace("{param}", self.parameter)
        meant = self.template.replace("{param}", flag)
        self.message = (self.message.replace(said, meant) if said in self.message
                        else meant)
        self.args = (self.message,)
