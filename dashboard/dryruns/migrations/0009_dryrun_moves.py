from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dryruns", "0008_dryrun_scheduler_lag"),
    ]

    operations = [
        migrations.AddField(
            model_name="dryrun",
            name="moves",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
