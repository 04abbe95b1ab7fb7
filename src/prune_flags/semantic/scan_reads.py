"""The scanner's handlers of reads: attributes, names, strings, tables, asserts, kept statements."""

from __future__ import annotations

import ast

from prune_flags.semantic.bindings import local_names
from prune_flags.semantic.facts import AssertRead, ObjectRead
from prune_flags.semantic.scan_state import ScanState
from prune_flags.syntax.expressions import _is_string, assert_subjects, ast_dotted
from prune_flags.syntax.options import option_like
from prune_flags.syntax.purity import pure_expression
from prune_flags.syntax.templates import Template, template_read


class Reads(ScanState):
    def kept(self, statement: ast.stmt) -> None:
        """A statement the pragma keeps as it is: each mention of a name in it is a read."""
        for node in ast.walk(statement):
            if isinstance(node, ast.Attribute) and node.attr in self.names:
                self._of(node.attr).attribute_reads.append(self._site(node))
            elif isinstance(node, ast.keyword) and node.arg in self.names:
                self._of(node.arg).attribute_reads.append(self._site(node))
            elif isinstance(node, ast.Name) and node.id in self.names:
                self._of(node.id).name_reads.append(self._site(node))

    def visit_Expr(self, node: ast.Expr) -> None:
        self._statement_call = node.value
        self.visit(node.value)

    def visit_Assert(self, node: ast.Assert) -> None:
        subjects = assert_subjects(node.test)
        if subjects is not None and any(
            isinstance(part, ast.Attribute) and self._elsewhere(part.value)
            for part in ast.walk(node.test)
        ):
            subjects = None  # it checks another library's attribute: nothing dead decides it
        self._assert = AssertRead(self._site(node), subjects)
        self.visit(node.test)
        self._assert = None
        if node.msg is not None:
            self.visit(node.msg)

    def _template_reads(self, node: ast.expr) -> tuple[str, ast.expr, Template] | None:
        """An expression that reads a flag through an accessor template: what names the flag in it
        is not read as an object (see _receiver). The read, if it is one."""
        read = template_read(self.accessors, node, self.flag_names) if self.accessors else None
        if read is not None and read[0] in self.names:
            self._templated.add(id(read[1]))
        return read

    def _receiver(self, node: ast.expr, use: str) -> None:
        """A candidate read that `use` applies to (`.value`, `(...)`, `[...]`): an object read,
        unless an accessor template reads it so. A template's read that `use` applies to stays a
        read of the flag the rewrite cannot replace (`config.x.value.lower()`): an object read too.
        """
        if id(node) in self._templated:
            return
        read = template_read(self.accessors, node, self.flag_names) if self.accessors else None
        if read is not None and read[0] in self.names:
            self._of(read[0]).object_reads.append(
                ObjectRead(self._site(node), f"{read[2].text}{use}", declared=True)
            )
            return
        if isinstance(node, ast.Attribute) and node.attr in self.names:
            if self._elsewhere(node.value) or ast_dotted(node.value) in self.members:
                return  # another library's attribute, or a member outside a template's shape
            base = ast_dotted(node.value) or "..."
            self._of(node.attr).object_reads.append(
                ObjectRead(self._site(node), f"{base}.{{name}}{use}")
            )
        elif isinstance(node, ast.Name) and node.id in self.names and node.id not in self.modules:
            # A local that only shares the name holds something else; a flag parameter is the flag.
            if not self._is_local(node.id) or any(
                node.id in parameters for parameters in self._flag_params
            ):
                self._of(node.id).object_reads.append(
                    ObjectRead(self._site(node), f"{{name}}{use}")
                )

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._template_reads(node)
        self._receiver(node.value, "[...]")
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        self._template_reads(node)  # a membership template's read: `Feature.{name} in mode`
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._template_reads(node)
        self._constant_use(node.attr, node)
        self._receiver(node.value, f".{node.attr}")
        if (
            node.attr in self.names
            and node is not self._written_name
            and not self._elsewhere(node.value)
            and (id(node) in self._templated or ast_dotted(node.value) not in self.members)
        ):
            if self._assert is not None:
                self._of(node.attr).assert_reads.append(self._assert)
            else:
                self._of(node.attr).attribute_reads.append(self._site(node))
        self.visit(node.value)

    def visit_Name(self, node: ast.Name) -> None:
        # A parameter or local that only shares the name reads itself, not the module's name.
        if (
            node.id in self.names
            and node.id not in self.modules
            and isinstance(node.ctx, ast.Load)
            and not self._is_local(node.id)
            and node is not self._written_name
        ):
            self._of(node.id).name_reads.append(self._site(node))
            # In a class body a bare name reads what the class binds (its own field) before a
            # module's: the field is read, and stays while this does.
            if self._scopes and self._scopes[-1] == "class" and node.id in self._class_bindings[-1]:
                self._of(node.id).attribute_reads.append(self._site(node))
        if isinstance(node.ctx, ast.Load):
            self._constant_use(node.id, node)

    def _constant_use(self, constant: str, node: ast.AST) -> None:
        """A use of a constant holding a flag's name (`FAST_KEY`, `keys.FAST_KEY`, "FAST_KEY") may
        hand the name to any reader: it reads the flag, unless it names what a writer call writes.
        """
        if constant in self.constants and node is not self._written_name:
            self._of(self.constants[constant]).string_reads.append(self._site(node))

    def _is_local(self, name: str) -> bool:
        for index, scope in enumerate(self._locals):
            if not isinstance(scope, set):
                scope = self._locals[index] = local_names(scope) & self.names
            if name in scope:
                return True
        return False

    def visit_Constant(self, node: ast.Constant) -> None:
        if (
            isinstance(node.value, str)
            and node.value in self.names
            and node is not self._written_name
            and node.value not in self._defining
            and id(node) not in self._elsewhere_names
            and id(node) not in self._variable_names
        ):
            self._of(node.value).string_reads.append(self._site(node))
        if isinstance(node.value, str):
            self._constant_use(node.value, node)

    def _table(self, node: ast.List | ast.Tuple | ast.Set | ast.Dict) -> None:
        """A name is a table mention (passes/tables.py goes by the same rules) as a dict key whose
        value has no side effects, or as an element of a table of names: a set, list or tuple of
        strings, none an option string (an argument list's words are no names). Either only in
        the place of a table: an assignment's value, a call's argument, a dict's value; anywhere
        else (`x == ["use_x"]`, a record `("use_x", bool)` in a list) it is a string read."""
        elements = node.keys if isinstance(node, ast.Dict) else node.elts
        table = id(node) in self._table_places and (
            isinstance(node, ast.Dict)
            or all(_is_string(e) and not option_like(e.value) for e in elements)
        )
        entries = (
            [pure_expression(value) for value in node.values]
            if isinstance(node, ast.Dict)
            else [True] * len(elements)
        )
        for element, entry in zip(elements, entries):
            if (
                table
                and entry
                and isinstance(element, ast.Constant)
                and isinstance(element.value, str)  # (_is_string, narrowing the value too)
                and element.value in self.names
            ):
                self._of(element.value).table_mentions.append(self._site(element))
            elif element is not None:
                self.visit(element)
        for value in node.values if isinstance(node, ast.Dict) else ():
            self._table_places.add(id(value))
            self.visit(value)

    visit_List = visit_Tuple = visit_Set = visit_Dict = _table
