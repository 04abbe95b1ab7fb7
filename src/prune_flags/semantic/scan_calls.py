"""The scanner's handlers of calls: lookups, setters, writer templates, imports by name."""

from __future__ import annotations

import ast

from prune_flags.semantic.facts import ITSELF, ObjectRead, Write
from prune_flags.semantic.scan_state import KEY_LOOKUPS, ScanState
from prune_flags.syntax.expressions import ast_dotted, literal, patched
from prune_flags.syntax.options import TYPE_DECLARATIONS, _option
from prune_flags.syntax.purity import pure_expression
from prune_flags.syntax.templates import Template
from prune_flags.syntax.values import UNKNOWN
from prune_flags.vocabulary import WriteKind


class Calls(ScanState):
    def _effectful_lookup(
        self, node: ast.Call, callee: str, read: tuple[str, ast.expr, Template] | None
    ) -> None:
        """`getattr(obj, "fast", compute())`, `hasattr(make(), "fast")`, a template's call (`read`)
        given `compute()` among its arguments: a lookup whose constant would drop what its other
        arguments do, which the rewrite therefore keeps (passes/lookups.py), as a read no fold
        may replace: an object read."""
        name: object = None
        named: ast.expr | None = None
        if (
            callee in ("getattr", "hasattr")
            and len(node.args) >= 2
            and not node.keywords
            and not self._elsewhere(node.args[0])
        ):
            name, named = (
                self.flag_names.of_ast(node.args[1]),
                node.args[1],
            )  # as lookups' named_flag
        elif read is not None:
            name, named = read[0], read[1]
        if not isinstance(name, str) or name not in self.names:
            return
        operands = [*(a for a in node.args if a is not named), *(k.value for k in node.keywords)]
        if not all(pure_expression(operand) for operand in operands):
            self._of(name).object_reads.append(
                ObjectRead(self._site(node), ast.unparse(node), declared=True, effects=True)
            )

    def _keyword_taken(self, node: ast.Call) -> bool:
        """Whether a call looks up a key of an enclosing function's `**kwargs` by a string
        (`options.pop("fast", False)`, `options.get("fast")`)."""
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr in KEY_LOOKUPS
            and isinstance(func.value, ast.Name)
            and bool(node.args)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and any(
                isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                and scope.args.kwarg is not None
                and scope.args.kwarg.arg == func.value.id
                for scope in self._scope_nodes
            )
        )

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        dotted = ast_dotted(func)
        if (
            dotted in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) >= 2
            and self._elsewhere(node.args[0])
        ):
            self._elsewhere_names.add(id(node.args[1]))
        if self._keyword_taken(node):
            # `options.pop("fast", False)` of `**options`: the key is the keyword a caller passes,
            # which the function takes there; no name of an attribute
            self._variable_names.add(id(node.args[0]))
        self._effectful_lookup(node, dotted, self._template_reads(node))
        if dotted.rsplit(".", 1)[-1] not in TYPE_DECLARATIONS:
            self._table_places.update(
                id(value)
                for value in [*node.args, *(k.value for k in node.keywords if k.arg is not None)]
            )
        for template in self.writers:
            written = template.written_value(node, self.flag_names)
            if (
                written is not None
                and written[0] in self.names
                and self._writer_stays_valid(node, written[1])
            ):
                self._writer_call(node, *written)
                return
        self._receiver(func, "(...)")
        callee = dotted.rsplit(".", 1)[-1]
        for keyword in node.keywords:
            if keyword.arg in self.names:
                value, carried = self._value(keyword.value, keyword.arg), self._carried(
                    keyword.value, keyword.arg
                )
                pure = pure_expression(keyword.value)
                self._of(keyword.arg).writes.append(
                    Write(
                        self._site(keyword),
                        WriteKind.KEYWORD,
                        value,
                        callee,
                        statement=pure,
                        carried_from=carried,
                    )
                )
        for index, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break
            if (
                isinstance(argument, ast.Name)
                and argument.id in self.names
                and (carried := self._carried(argument, argument.id))
            ):
                through = isinstance(func, ast.Attribute)
                passed = Write(
                    self._site(argument),
                    WriteKind.ARGUMENT,
                    UNKNOWN,
                    callee,
                    index,
                    through,
                    carried_from=carried,
                )
                self._of(argument.id).passed.append(passed)
        double = patched(node)
        if double is not None and double[0] in self.names:
            self._of(double[0]).writes.append(
                Write(self._site(node), WriteKind.PATCH, literal(double[1]))
            )
        dest, strings, arity = _option(node, self.option_calls)
        if dest in self.names:
            # The option defines the flag (the user declared it stale): a definition, not a read.
            option = Write(
                self._site(node),
                WriteKind.OPTION,
                ITSELF,
                option_strings=strings,
                option_arity=arity,
            )
            self._of(dest).writes.append(option)
            for child in (node.func, *node.args):
                if not isinstance(child, ast.Constant):  # option names and dest are not reads
                    self.visit(child)
            for keyword in node.keywords:
                if keyword.arg != "dest":
                    self.visit(keyword.value)
            return
        self._environment_write(node)
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
            name = literal(node.args[1])
            if isinstance(name, str) and name in self.names and not self._elsewhere(node.args[0]):
                write = Write(
                    self._site(node),
                    WriteKind.SETATTR,
                    literal(node.args[2]),
                    statement=node is self._statement_call,
                    parameters=self._parameters_read(node.args[2]),
                )
                self._of(name).writes.append(write)
                self.visit(node.args[0])
                self.visit(node.args[2])
                return
        self.generic_visit(node)

    def _writer_call_removable(self, node: ast.Call) -> bool:
        """A statement, a `with` item or a decorator can go; a call inside an expression cannot."""
        return node is self._statement_call or id(node) in self._setter_places

    def _writer_stays_valid(self, node: ast.Call, naming: ast.expr | None) -> bool:
        """Whether a writer call is a write whatever becomes of the flag's definition: one naming
        the flag in its callee (`config.use_x(True)`) calls what the definition holds, so where it
        cannot go it is what it looks like, a use of the flag as an object (a refusal)."""
        part: ast.expr = node.func
        while part is not naming and isinstance(part, ast.Attribute):
            part = part.value
        return part is not naming or self._writer_call_removable(node)

    def _writer_call(
        self, node: ast.Call, name: str, naming: ast.expr | None, value: ast.expr | None
    ) -> None:
        """A call of a writer template: a write of the flag; one giving no value registers it
        (`config.define_bool_state(name="use_x")`), a definition of its own value."""
        statement = self._writer_call_removable(node)
        written = ITSELF if value is None else literal(value)
        write = Write(
            self._site(node),
            WriteKind.WRITER,
            written,
            statement=statement,
            parameters=self._parameters_read(value),
        )
        self._of(name).writes.append(write)
        # The node naming the flag is not a read of it (a constant holding the name is still a
        # use of the constant, seen where it is defined).
        outer, self._written_name = self._written_name, naming
        self.generic_visit(node)
        self._written_name = outer

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name in self.names:
                self._of(alias.name).name_reads.append(self._site(node))
