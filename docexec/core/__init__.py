"""What every stage shares: the error shape, atomic files, private APIs of other packages."""
