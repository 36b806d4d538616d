def copy(src, dst):
    pass
