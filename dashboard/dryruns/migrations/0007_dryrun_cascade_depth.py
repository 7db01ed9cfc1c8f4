from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dryruns", "0006_dryrun_hardware_view"),
    ]

    operations = [
        migrations.AddField(
            model_name="dryrun",
            name="cascade_depth",
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
