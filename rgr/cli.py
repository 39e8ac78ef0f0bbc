import click


@click.group()
def cli() -> None:
    """rgr"""


def main() -> None:
    cli()
